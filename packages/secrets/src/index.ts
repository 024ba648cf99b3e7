export { generateKey, type Keyring, parseKeyring, SecretsError } from './keyring';
