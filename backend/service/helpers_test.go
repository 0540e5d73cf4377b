package service_test

import (
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
)

func storeRecord(workspaceID, key string) store.IdempotentResponse {
	return store.IdempotentResponse{WorkspaceID: workspaceID, Key: key, RequestHash: "x", CreatedAt: time.Now()}
}
