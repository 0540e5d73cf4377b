package service

// Resync runs what a reconnect of the notification listener runs (tests cannot break a
// SQLite listener; the PostgreSQL integration test restarts a real server).
func (s *Service) Resync() { s.resync() }
