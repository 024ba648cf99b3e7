export { Spool, type SpoolUse } from './spool';
