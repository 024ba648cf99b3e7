/** An answer read off a raw socket: its status, headers (names in lower case) and JSON body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Each answer in the bytes a server wrote on a socket (several on a kept-alive one), in order. */
export function answers(raw: string): RawAnswer[] {
  return raw
    .split(/(?=HTTP\/1\.1 \d{3})/)
    .filter(Boolean)
    .map((one) => {
      const [head = '', body = ''] = one.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
    });
}
