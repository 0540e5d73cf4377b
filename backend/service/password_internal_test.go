package service

import (
	"testing"
	"time"
)

// With every argon2 slot taken, a password check waits its turn instead of taking another
// core; it runs once a slot is free.
func TestPasswordChecksTakeTurns(t *testing.T) {
	hash := (&Users{s: &Service{cfg: Config{Argon2MemoryKiB: 64, Argon2Time: 1}}}).hashPassword("pw")
	for range cap(argon2Slots) {
		argon2Slots <- struct{}{}
	}
	done := make(chan bool)
	go func() { done <- checkPassword(hash, "pw") }()
	select {
	case <-done:
		t.Fatal("a check ran with every slot taken")
	case <-time.After(100 * time.Millisecond):
	}
	for range cap(argon2Slots) {
		<-argon2Slots
	}
	if !<-done {
		t.Fatal("the check failed once it ran")
	}
}
