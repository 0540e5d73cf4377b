package graph

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/graph/model"
)

func (r *mutationResolver) SignUp(ctx context.Context, input model.SignUpInput) (*model.AuthPayload, error) {
	x, ok := exchangeFrom(ctx)
	if !ok {
		return nil, errNeedsHTTP
	}
	user, token, err := r.svc.Users.SignUp(ctx, service.SignUpInput{Email: input.Email, Password: input.Password, Name: input.Name}, x.client())
	if err != nil {
		return nil, err
	}
	x.setSession(token)
	return &model.AuthPayload{User: &user}, nil
}

func (r *mutationResolver) SignIn(ctx context.Context, input model.SignInInput) (*model.AuthPayload, error) {
	x, ok := exchangeFrom(ctx)
	if !ok {
		return nil, errNeedsHTTP
	}
	user, token, err := r.svc.Users.SignIn(ctx, service.SignInInput{Email: input.Email, Password: input.Password}, x.client())
	if err != nil {
		return nil, err
	}
	x.setSession(token)
	return &model.AuthPayload{User: &user}, nil
}

func (r *mutationResolver) SignOut(ctx context.Context) (bool, error) {
	x, ok := exchangeFrom(ctx)
	if !ok {
		return false, errNeedsHTTP
	}
	if err := r.svc.Users.SignOut(ctx, x.sessionToken()); err != nil {
		return false, err
	}
	x.clearSession()
	return true, nil
}

func (r *queryResolver) Viewer(context.Context) (*model.Viewer, error) {
	return &model.Viewer{}, nil
}

// User is the signed-in user; null when signed out or called with an API key.
func (r *viewerResolver) User(ctx context.Context, _ *model.Viewer) (*domain.User, error) {
	u, err := r.svc.Users.Get(ctx, actor(ctx))
	return nullWhenAbsent(u, err)
}

// nullWhenAbsent turns "not signed in" and "not found" into null, for the viewer's
// nullable fields; other errors stay errors.
func nullWhenAbsent[T any](v T, err error) (*T, error) {
	if domain.IsCode(err, domain.CodeUnauthenticated) || domain.IsCode(err, domain.CodeNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}
