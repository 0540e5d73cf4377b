package telegram

import (
	"context"
	"strconv"

	"github.com/go-telegram/bot"

	"github.com/switchboard-dev/switchboard/backend/channels"
)

// Groups: a bot joins groups when someone adds it (reported through the webhook), and can
// change them as far as its admin rights allow. It cannot create groups nor add members
// (Telegram offers bots neither), so CreateGroup stays unsupported.

// UpdateGroup sets the group's title and description. The service hands over the whole
// group, not what changed, so both are set and "not modified" answers count as done.
func (d *Driver) UpdateGroup(ctx context.Context, in channels.Instance, g channels.GroupInfo) error {
	b, tok, err := d.callBot(in)
	if err != nil {
		return err
	}
	chat := chatID(g.Address)
	if g.Subject != "" {
		_, err := b.SetChatTitle(ctx, &bot.SetChatTitleParams{ChatID: chat, Title: g.Subject})
		if err := notModifiedIsDone(d.fail(ctx, in, tok, err)); err != nil {
			return err
		}
	}
	_, err = b.SetChatDescription(ctx, &bot.SetChatDescriptionParams{ChatID: chat, Description: g.Description})
	return notModifiedIsDone(d.fail(ctx, in, tok, err))
}

// ChangeParticipants removes members; bots cannot add anyone (they may only share an
// invite link), so any addition is refused before anything changes. A removal is a ban
// lifted at once: the member is out but may join again, as after a WhatsApp removal.
func (d *Driver) ChangeParticipants(ctx context.Context, in channels.Instance, g channels.GroupInfo, add, remove []string) error {
	if len(add) > 0 {
		return channels.ErrUnsupported
	}
	users := make([]int64, len(remove))
	for i, r := range remove {
		id, err := strconv.ParseInt(r, 10, 64)
		if err != nil || id <= 0 {
			return invalid(r + " is not a Telegram user id")
		}
		users[i] = id
	}
	b, tok, err := d.callBot(in)
	if err != nil {
		return err
	}
	chat := chatID(g.Address)
	for _, u := range users {
		_, err := b.BanChatMember(ctx, &bot.BanChatMemberParams{ChatID: chat, UserID: u})
		if err := d.fail(ctx, in, tok, err); err != nil {
			return err
		}
		_, err = b.UnbanChatMember(ctx, &bot.UnbanChatMemberParams{ChatID: chat, UserID: u, OnlyIfBanned: true})
		if err := d.fail(ctx, in, tok, err); err != nil {
			return err
		}
	}
	return nil
}

// LeaveGroup makes the bot leave the group.
func (d *Driver) LeaveGroup(ctx context.Context, in channels.Instance, g channels.GroupInfo) error {
	b, tok, err := d.callBot(in)
	if err != nil {
		return err
	}
	_, err = b.LeaveChat(ctx, &bot.LeaveChatParams{ChatID: chatID(g.Address)})
	return d.fail(ctx, in, tok, err)
}
