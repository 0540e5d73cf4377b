import { lazy } from 'react';
import { Route } from 'react-router';
import { LazyPage as Lazy } from './LazyPage';

// The messaging pages, loaded on demand.
const InstancesPage = lazy(() => import('./InstancesPage'));
const ConversationsPage = lazy(() => import('./ConversationsPage'));
const GroupsPage = lazy(() => import('./GroupsPage'));
const ContactsPage = lazy(() => import('./ContactsPage'));

/** The messaging surface's routes below /api (App.tsx renders them with one line). */
export const messagingRoutes = (
  <>
    <Route path="instances" element={<Lazy><InstancesPage /></Lazy>} />
    <Route path="messages" element={<Lazy><ConversationsPage /></Lazy>} />
    <Route path="groups" element={<Lazy><GroupsPage /></Lazy>} />
    <Route path="contacts" element={<Lazy><ContactsPage /></Lazy>} />
  </>
);
