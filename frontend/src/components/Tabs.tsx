import * as RadixTabs from '@radix-ui/react-tabs';
import type { ReactNode } from 'react';
import styles from './Tabs.module.css';

export interface TabItem {
  id: string;
  label: string;
  content: ReactNode;
}

export function Tabs({ items, label, defaultValue }: { items: TabItem[]; label: string; defaultValue?: string }) {
  return (
    <RadixTabs.Root defaultValue={defaultValue ?? items[0]?.id}>
      <RadixTabs.List className={styles.list} aria-label={label}>
        {items.map((t) => (
          <RadixTabs.Trigger key={t.id} value={t.id} className={styles.trigger}>
            {t.label}
          </RadixTabs.Trigger>
        ))}
      </RadixTabs.List>
      {items.map((t) => (
        <RadixTabs.Content key={t.id} value={t.id}>
          {t.content}
        </RadixTabs.Content>
      ))}
    </RadixTabs.Root>
  );
}
