/** A summary line that opens to the value as indented JSON. */
export function JsonDetails({ summary, value }: { summary: React.ReactNode; value: unknown }) {
  return (
    <details className="json">
      <summary>{summary}</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}
