package store

import "strings"

// newestFirst completes a list query with the keyset page every list uses: the rows before
// the cursor id (when given), newest first, limit+1 of them so the caller can tell whether
// there is more. where holds the list's own conditions (joined with AND); ids must be
// time-sortable, as every id here is.
func newestFirst(query string, where []string, args []any, before string, limit int) (string, []any) {
	if before != "" {
		where = append(where, "id < ?")
		args = append(args, before)
	}
	return query + " WHERE " + strings.Join(where, " AND ") + " ORDER BY id DESC LIMIT ?", append(args, limit+1)
}
