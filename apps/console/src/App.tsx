import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { can, describeError, gatewayClient, type Session, SessionContext } from './gateway';
import { AccountPage } from './pages/AccountPage';
import { AccountsPage } from './pages/AccountsPage';
import { ActivityPage } from './pages/ActivityPage';
import { AuditPage } from './pages/AuditPage';
import { KeysPage } from './pages/KeysPage';
import { SignInPage } from './pages/SignInPage';
import { UsagePage } from './pages/UsagePage';
import { WebhooksPage } from './pages/WebhooksPage';
import { hrefOf, type Page, type Route, useRoute } from './router';
import { signOut, useApiKey } from './session';

/** Sign-in until there is a key; then the pages its scope allows. */
export function App({ platform }: { platform: string }) {
  const apiKey = useApiKey();
  const [notice, setNotice] = useState<string | null>(null);
  if (apiKey === null) return <SignInPage platform={platform} notice={notice} onNotice={setNotice} />;
  return <SignedIn apiKey={apiKey} platform={platform} onSignedOut={setNotice} />;
}

function SignedIn(props: { apiKey: string; platform: string; onSignedOut: (notice: string | null) => void }) {
  const { apiKey, platform, onSignedOut } = props;
  const queryClient = useQueryClient();
  const gw = useMemo(() => gatewayClient(apiKey, platform), [apiKey, platform]);
  const self = useQuery({ queryKey: ['keys', 'self'], queryFn: async () => (await gw.keysSelf()).data });
  const route = useRoute();
  const leave = (notice: string | null) => {
    signOut();
    queryClient.clear();
    onSignedOut(notice);
  };
  // A kept key that no longer works (revoked, another gateway): back to sign-in, saying why.
  const failure = self.isError ? `Signed out: ${describeError(self.error)}` : null;
  useEffect(() => {
    if (failure === null) return;
    signOut();
    queryClient.clear();
    onSignedOut(failure);
  }, [failure, queryClient, onSignedOut]);
  if (failure !== null) return null;
  if (self.data === undefined) return <p className="loading">Loading…</p>;
  const session: Session = { gw, scope: self.data };
  const pages: { page: Exclude<Page, 'account'>; label: string; shown: boolean }[] = [
    { page: 'accounts', label: 'Accounts', shown: true },
    { page: 'activity', label: 'Activity', shown: true },
    { page: 'audit', label: 'Audit', shown: true },
    { page: 'usage', label: 'Usage', shown: true },
    { page: 'webhooks', label: 'Webhooks', shown: true },
    { page: 'keys', label: 'Keys', shown: can.admin(session.scope) },
  ];
  const shown: Route =
    route.page === 'account' || pages.some((entry) => entry.page === route.page && entry.shown)
      ? route
      : { page: 'accounts' };
  const current = shown.page === 'account' ? 'accounts' : shown.page;
  return (
    <SessionContext.Provider value={session}>
      <header className="bar">
        <strong>creator-gateway</strong>
        <nav aria-label="Pages">
          {pages
            .filter((entry) => entry.shown)
            .map((entry) => (
              <a
                key={entry.page}
                href={hrefOf(entry.page)}
                aria-current={entry.page === current ? 'page' : undefined}
              >
                {entry.label}
              </a>
            ))}
        </nav>
        <nav aria-label="Operator">
          <a href="/admin/queues">Queues</a> <a href="/docs">API reference</a>
        </nav>
        <span className="who">
          {session.scope.label || session.scope.keyId} · {session.scope.access}
          {session.scope.accounts === null
            ? ' · every account'
            : ` · ${session.scope.accounts.length} account(s)`}
        </span>
        <button type="button" onClick={() => leave(null)}>
          Sign out
        </button>
      </header>
      <main>
        <PageOf route={shown} />
      </main>
    </SessionContext.Provider>
  );
}

/** The page a route names (its key may see it: checked above). */
function PageOf({ route }: { route: Route }) {
  switch (route.page) {
    case 'account':
      return <AccountPage key={route.accountId} accountId={route.accountId ?? ''} />;
    case 'activity':
      return <ActivityPage />;
    case 'audit':
      return <AuditPage />;
    case 'usage':
      return <UsagePage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'keys':
      return <KeysPage />;
    default:
      return <AccountsPage />;
  }
}
