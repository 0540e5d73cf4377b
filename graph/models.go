package graph

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

func (r *queryResolver) Models(ctx context.Context) ([]domain.Model, error) {
	return r.svc.Models.List(ctx, actor(ctx))
}
