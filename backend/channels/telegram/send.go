package telegram

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

// callBot returns the Bot API client of a connected instance; a missing or malformed token
// is a permanent refusal, like a revoked one.
func (d *Driver) callBot(in channels.Instance) (*bot.Bot, string, error) {
	b, tok, err := d.botFor(in)
	if err != nil {
		return nil, "", &channels.SendError{Code: codeUnauthorized, Message: err.Error(), Permanent: true}
	}
	return b, tok, nil
}

func invalid(msg string) error {
	return &channels.SendError{Code: "invalid_request", Message: msg, Permanent: true}
}

// Send sends one message. Telegram answers with the message it stored, whose chat id is
// numeric even when the message was addressed to an @username: the provider id uses it.
func (d *Driver) Send(ctx context.Context, in channels.Instance, m channels.Outbound) (channels.Sent, error) {
	b, tok, err := d.callBot(in)
	if err != nil {
		return channels.Sent{}, err
	}
	if m.Type == domain.TypeReaction {
		return channels.Sent{}, d.react(ctx, b, tok, in, m)
	}
	var reply *models.ReplyParameters
	if m.ReplyTo != "" {
		_, id, err := splitProviderID(m.ReplyTo)
		if err != nil {
			return channels.Sent{}, err
		}
		// A reply to a message deleted meanwhile is still sent, as a plain message.
		reply = &models.ReplyParameters{MessageID: id, AllowSendingWithoutReply: true}
	}
	topic, err := topicOf(m.ThreadID)
	if err != nil {
		return channels.Sent{}, err
	}
	chat, c := chatID(m.ChatAddress), m.Content
	var msg *models.Message
	switch m.Type {
	case domain.TypeText:
		msg, err = b.SendMessage(ctx, &bot.SendMessageParams{ChatID: chat, MessageThreadID: topic, Text: c.Text, ReplyParameters: reply})
	case domain.TypeImage, domain.TypeVideo, domain.TypeAudio, domain.TypeVoice, domain.TypeDocument, domain.TypeSticker:
		file, ferr := d.inputFile(ctx, m.Type, c.Media)
		if ferr != nil {
			return channels.Sent{}, ferr // refused or unreachable before Telegram was called
		}
		msg, err = sendMedia(ctx, b, chat, topic, m.Type, file, c.Media.Caption, reply)
	case domain.TypeLocation:
		if c.Location == nil {
			return channels.Sent{}, invalid("a location message needs a location")
		}
		msg, err = b.SendLocation(ctx, &bot.SendLocationParams{ChatID: chat, MessageThreadID: topic, Latitude: c.Location.Latitude,
			Longitude: c.Location.Longitude, ReplyParameters: reply})
	case domain.TypeContact:
		if c.Contact == nil || len(c.Contact.Phones) == 0 {
			return channels.Sent{}, invalid("a Telegram contact needs a phone number")
		}
		first, last := splitName(c.Contact.Name, c.Contact.Phones[0])
		msg, err = b.SendContact(ctx, &bot.SendContactParams{ChatID: chat, MessageThreadID: topic, PhoneNumber: c.Contact.Phones[0],
			FirstName: first, LastName: last, VCard: c.Contact.VCard, ReplyParameters: reply})
	case domain.TypePoll:
		if c.Poll == nil {
			return channels.Sent{}, invalid("a poll message needs a poll")
		}
		opts := make([]models.InputPollOption, len(c.Poll.Options))
		for i, o := range c.Poll.Options {
			opts[i] = models.InputPollOption{Text: o}
		}
		msg, err = b.SendPoll(ctx, &bot.SendPollParams{ChatID: chat, MessageThreadID: topic, Question: c.Poll.Question, Options: opts,
			AllowsMultipleAnswers: c.Poll.MultipleAnswers, ReplyParameters: reply})
	default:
		return channels.Sent{}, channels.ErrUnsupported
	}
	if err != nil {
		return channels.Sent{}, d.fail(ctx, in, tok, err)
	}
	if msg == nil {
		return channels.Sent{}, errors.New("telegram: the answer to a send held no message")
	}
	return channels.Sent{ProviderMessageID: providerID(msg.Chat.ID, msg.ID)}, nil
}

// topicOf is the message_thread_id of a thread: a forum topic's number; 0 (left out) is the
// chat itself, or a forum's General topic.
func topicOf(thread string) (int, error) {
	if thread == "" {
		return 0, nil
	}
	topic, err := strconv.Atoi(thread)
	if err != nil || topic <= 0 {
		return 0, invalid("thread_id must be a forum topic's message_thread_id")
	}
	return topic, nil
}

// inputFile is the file of a media message: a file_id Telegram already holds is sent as
// is; a media.url is fetched through the media client (so it may name hosts Telegram
// cannot reach, such as this deployment's own signed /media/ URLs, and is checked against
// the SSRF policy and the size limit) and uploaded.
func (d *Driver) inputFile(ctx context.Context, typ string, media *domain.Media) (models.InputFile, error) {
	if media == nil || (media.URL == "" && media.ProviderMediaID == "") {
		return nil, invalid(typ + " messages need media.url or media.provider_media_id")
	}
	if media.ProviderMediaID != "" {
		return &models.InputFileString{Data: media.ProviderMediaID}, nil
	}
	f, err := channels.Fetch(ctx, d.media, media.URL, d.maxMedia)
	if err != nil {
		return nil, err
	}
	name := f.FileName
	if media.FileName != "" {
		name = media.FileName
	}
	return &models.InputFileUpload{Filename: name, Data: bytes.NewReader(f.Data)}, nil
}

// sendMedia sends a file, uploaded or by file_id.
func sendMedia(ctx context.Context, b *bot.Bot, chat any, topic int, typ string, file models.InputFile, caption string, reply *models.ReplyParameters) (*models.Message, error) {
	switch typ {
	case domain.TypeImage:
		return b.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: chat, MessageThreadID: topic, Photo: file, Caption: caption, ReplyParameters: reply})
	case domain.TypeVideo:
		return b.SendVideo(ctx, &bot.SendVideoParams{ChatID: chat, MessageThreadID: topic, Video: file, Caption: caption, ReplyParameters: reply})
	case domain.TypeAudio:
		return b.SendAudio(ctx, &bot.SendAudioParams{ChatID: chat, MessageThreadID: topic, Audio: file, Caption: caption, ReplyParameters: reply})
	case domain.TypeVoice:
		return b.SendVoice(ctx, &bot.SendVoiceParams{ChatID: chat, MessageThreadID: topic, Voice: file, Caption: caption, ReplyParameters: reply})
	case domain.TypeDocument:
		return b.SendDocument(ctx, &bot.SendDocumentParams{ChatID: chat, MessageThreadID: topic, Document: file, Caption: caption, ReplyParameters: reply})
	default: // sticker: Telegram takes no caption for stickers
		return b.SendSticker(ctx, &bot.SendStickerParams{ChatID: chat, MessageThreadID: topic, Sticker: file, ReplyParameters: reply})
	}
}

// splitName splits a contact's name into Telegram's first and last name; first_name is
// required, so a nameless contact is named by its phone.
func splitName(name, phone string) (first, last string) {
	name = strings.TrimSpace(name)
	if name == "" {
		return phone, ""
	}
	first, last, _ = strings.Cut(name, " ")
	return first, strings.TrimSpace(last)
}

// react sets the bot's reaction on a message; an empty emoji removes it. Reactions are
// not messages on Telegram, so they have no provider id.
func (d *Driver) react(ctx context.Context, b *bot.Bot, tok string, in channels.Instance, m channels.Outbound) error {
	if m.Content.Reaction == nil {
		return invalid("a reaction message needs a reaction")
	}
	if m.ReactionTarget == "" {
		return invalid("the message reacted to has no Telegram message id (it was never sent through Telegram)")
	}
	chat, id, err := splitProviderID(m.ReactionTarget)
	if err != nil {
		return err
	}
	// An empty list (sent as "[]", not left out) clears the bot's reaction.
	reactions := []models.ReactionType{}
	if e := telegramEmoji(m.Content.Reaction.Emoji); e != "" {
		reactions = append(reactions, models.ReactionType{Type: models.ReactionTypeTypeEmoji,
			ReactionTypeEmoji: &models.ReactionTypeEmoji{Emoji: e}})
	}
	_, err = b.SetMessageReaction(ctx, &bot.SetMessageReactionParams{ChatID: chat, MessageID: id, Reaction: reactions})
	return d.fail(ctx, in, tok, err)
}

// telegramEmoji writes an emoji as Telegram's reaction list does: without variation
// selectors. Keyboards (and WhatsApp) write "❤️" as U+2764 U+FE0F; Telegram offers "❤"
// and refuses the other form with REACTION_INVALID.
func telegramEmoji(e string) string {
	return strings.Map(func(r rune) rune {
		if r == '\uFE0F' || r == '\uFE0E' {
			return -1
		}
		return r
	}, e)
}

// Edit changes the text of a message the bot sent. The chat comes from the provider id,
// which holds the numeric chat id even for chats addressed by @username.
func (d *Driver) Edit(ctx context.Context, in channels.Instance, m channels.SentMessage, text string) error {
	b, tok, err := d.callBot(in)
	if err != nil {
		return err
	}
	chat, id, err := splitProviderID(m.ProviderMessageID)
	if err != nil {
		return err
	}
	_, err = b.EditMessageText(ctx, &bot.EditMessageTextParams{ChatID: chat, MessageID: id, Text: text})
	return notModifiedIsDone(d.fail(ctx, in, tok, err))
}

// Delete deletes a message for everyone in the chat.
func (d *Driver) Delete(ctx context.Context, in channels.Instance, m channels.SentMessage) error {
	b, tok, err := d.callBot(in)
	if err != nil {
		return err
	}
	chat, id, err := splitProviderID(m.ProviderMessageID)
	if err != nil {
		return err
	}
	_, err = b.DeleteMessage(ctx, &bot.DeleteMessageParams{ChatID: chat, MessageID: id})
	return d.fail(ctx, in, tok, err)
}

// Typing shows "typing…" or "recording a voice message…". Telegram clears the indicator
// by itself after five seconds or at the next message, and has no call to stop it, so
// paused does nothing.
func (d *Driver) Typing(ctx context.Context, in channels.Instance, t channels.Indicator) error {
	var action models.ChatAction
	switch t.State {
	case "composing", "":
		action = models.ChatActionTyping
	case "recording":
		action = models.ChatActionRecordVoice
	case "paused":
		return nil
	default:
		return invalid("unknown typing state " + t.State)
	}
	topic, err := topicOf(t.ThreadID)
	if err != nil {
		return err
	}
	b, tok, err := d.callBot(in)
	if err != nil {
		return err
	}
	_, err = b.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: chatID(t.ChatAddress), MessageThreadID: topic, Action: action})
	return d.fail(ctx, in, tok, err)
}

// notModifiedIsDone treats Telegram's "... is not modified" refusal (the change asked for
// is already there) as success, also in the raw form TDLib hands bots for chats
// ("CHAT_NOT_MODIFIED").
func notModifiedIsDone(err error) error {
	var se *channels.SendError
	if errors.As(err, &se) {
		if msg := strings.ToLower(se.Message); strings.Contains(msg, "not modified") || strings.Contains(msg, "not_modified") {
			return nil
		}
	}
	return err
}
