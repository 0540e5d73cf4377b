import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { AppRoutes } from './App';
import { ClientProvider } from './lib/ClientProvider';
import './styles/global.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ClientProvider>
      <BrowserRouter basename="/user">
        <AppRoutes />
      </BrowserRouter>
    </ClientProvider>
  </StrictMode>,
);
