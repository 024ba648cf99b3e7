/**
 * Request prices are dollars; the platform keeps every price in mills (1/1000 USD). This is the one
 * conversion the gateway makes when it writes a price (contract, Units: mills = round(dollars × 1000)).
 */
export const dollarsToMills = (dollars: number): number => Math.round(dollars * 1000);

/** Platform mills → the dollars a record repeats from a request (automated message tipAmount). */
export const millsToDollars = (mills: number): number => mills / 1000;
