import {

  Cpu,
  Contact,
  Gauge,
  KeyRound,
  Link2,
  MessageSquare,
  Radio,
  Smartphone,
  BookOpen,
  Users,
  Webhook,
  Workflow,
  type LucideIcon,
} from 'lucide-react';

export interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
  soon?: boolean;
  end?: boolean;
}

export interface NavSection {
  title?: string;
  items: NavItem[];
}

export const navSections: NavSection[] = [
  {
    items: [{ to: '/api', label: 'Overview', icon: Gauge, end: true }],
  },
  {
    title: 'Developers',
    items: [
      { to: '/api/keys', label: 'API keys', icon: KeyRound },
      { to: '/api/models', label: 'Models', icon: Cpu },
      { to: '/api/reference', label: 'API reference', icon: BookOpen },
      { to: '/api/events', label: 'Events', icon: Radio },
      { to: '/api/webhooks', label: 'Webhooks', icon: Webhook },
    ],
  },
  {
    title: 'Messaging',
    items: [
      { to: '/api/instances', label: 'Instances', icon: Smartphone },
      { to: '/api/messages', label: 'Messages', icon: MessageSquare },
      { to: '/api/groups', label: 'Groups', icon: Users },
      { to: '/api/contacts', label: 'Contacts', icon: Contact },
    ],
  },
  {
    title: 'Links & automation',
    items: [
      { to: '/api/links', label: 'Short links', icon: Link2 },
      { to: '/api/automation', label: 'Automation', icon: Workflow },
    ],
  },
];

export const plannedSurfaces: Record<string, { title: string; description: string; icon: LucideIcon; api: string }> = {
  instances: {
    title: 'Instances',
    icon: Smartphone,
    api: '/api/v1/instances',
    description: 'Connect channel instances (a bot, a phone number), pair them and watch their status live.',
  },
  messages: {
    title: 'Messages',
    icon: MessageSquare,
    api: '/api/v1/instances/{id}/messages',
    description: 'A live feed of sent and received messages with their delivery status.',
  },
  groups: {
    title: 'Groups',
    icon: Users,
    api: '/api/v1/instances/{id}/groups',
    description: 'Create groups, change their subject and manage participants.',
  },
  contacts: {
    title: 'Contacts',
    icon: Contact,
    api: '/api/v1/instances/{id}/contacts',
    description: 'Contacts created from inbound traffic, with labels and custom attributes.',
  },
  links: {
    title: 'Short links',
    icon: Link2,
    api: '/api/v1/links',
    description: 'Create short links, see click stats by day, country and device, and download QR codes.',
  },
  automation: {
    title: 'Automation',
    icon: Workflow,
    api: '/api/v1/automation',
    description: 'Inbound publishing endpoints for n8n, Zapier or Make, and REST-hook subscriptions back to them.',
  },
};

