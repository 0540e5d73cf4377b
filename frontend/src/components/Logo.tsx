export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="#5145cd" />
      <path d="M9 11h9M9 16h14M9 21h9" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" />
      <circle cx="22" cy="11" r="2.2" fill="#a5b4fc" />
      <circle cx="22" cy="21" r="2.2" fill="#a5b4fc" />
    </svg>
  );
}
