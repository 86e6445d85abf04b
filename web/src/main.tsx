// The web UI: a single-page app over the public API, under the service's context path.
import { lazy, StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { GlobalSearch } from './components/global-search';
import { PageBoundary } from './components/page-boundary';
import { usePageTitle } from './components/ui';
import { MAY, SessionProvider, useSession } from './session';
import { AdminPage } from './pages/admin-page';
import { AssetDetailPage } from './pages/asset-detail-page';
import { AssetsPage } from './pages/assets-page';
import { CredentialsPage } from './pages/credentials-page';
import { DiscoveryPage } from './pages/discovery-page';
import { FlowsPage } from './pages/flows-page';
import { InsightsPage } from './pages/insights-page';
import { LoginPage, SignedInRedirect } from './pages/login-page';
import { ProfilePage } from './pages/profile-page';
import { RunPage } from './pages/run-page';
import { ScannersPage } from './pages/scanners-page';
import { SchemaPage } from './pages/schema-page';
import './styles.css';

// The graph view and its libraries load only when a topology or the Cypher console is opened.
const TopologyPage = lazy(() => import('./pages/topology-page').then((m) => ({ default: m.TopologyPage })));
const CypherPage = lazy(() => import('./pages/cypher-page').then((m) => ({ default: m.CypherPage })));

function NoSuchPage() {
  usePageTitle('No such page');
  return <p>No such page.</p>;
}

function Shell() {
  const { me, signOut, has } = useSession();
  const location = useLocation();
  if (me === undefined) return <p className="muted" aria-busy="true">Loading…</p>;
  if (me === null) return location.pathname === '/login' ? <LoginPage /> : <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return (
    <>
      <header className="top">
        <a className="skip" href="#main">Skip to content</a>
        <span className="brand">Asset inventory</span>
        <nav aria-label="Main">
          <NavLink to="/assets">Assets</NavLink>
          <NavLink to="/discovery">Discovery</NavLink>
          <NavLink to="/insights">Insights</NavLink>
          <NavLink to="/flows">Flows</NavLink>
          {has(...MAY.discovery) && <NavLink to="/credentials">Credentials</NavLink>}
          <NavLink to="/schema">Schema</NavLink>
          {has(...MAY.cypher) && <NavLink to="/cypher">Cypher</NavLink>}
          {has(...MAY.admin) && <NavLink to="/admin">Administration</NavLink>}
          {has(...MAY.admin) && <NavLink to="/scanners">Scanners</NavLink>}
          <NavLink to="/profile">Profile</NavLink>
        </nav>
        {/* One group, so that the header wraps them together: the search's list never covers the roles. */}
        <div className="header-tools">
          <GlobalSearch />
          <span className="who">
            {me.name} <span className="muted">({me.roles.join(', ')})</span>
            <button type="button" className="link" onClick={() => void signOut()}>Sign out</button>
          </span>
        </div>
      </header>
      <main id="main">
        <PageBoundary key={location.pathname}>
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <Routes>
              <Route path="/" element={<Navigate to="/assets" replace />} />
              <Route path="/login" element={<SignedInRedirect />} />
              <Route path="/assets" element={<AssetsPage />} />
              <Route path="/assets/:id" element={<AssetDetailPage />} />
              <Route path="/topology/:id" element={<TopologyPage />} />
              <Route path="/discovery" element={<DiscoveryPage />} />
              <Route path="/discovery/runs/:id" element={<RunPage />} />
              <Route path="/insights" element={<InsightsPage />} />
              <Route path="/flows" element={<FlowsPage />} />
              <Route path="/credentials" element={<CredentialsPage />} />
              <Route path="/admin" element={<AdminPage />} />
              <Route path="/scanners" element={<ScannersPage />} />
              <Route path="/profile" element={<ProfilePage />} />
              <Route path="/schema" element={<SchemaPage />} />
              <Route path="/cypher" element={<CypherPage />} />
              <Route path="*" element={<NoSuchPage />} />
            </Routes>
          </Suspense>
        </PageBoundary>
      </main>
    </>
  );
}

const basename = new URL(document.baseURI).pathname.replace(/\/$/, '');

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <BrowserRouter basename={basename || '/'}>
      <SessionProvider>
        <Shell />
      </SessionProvider>
    </BrowserRouter>
  </StrictMode>,
);
