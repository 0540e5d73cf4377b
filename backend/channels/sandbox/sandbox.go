// Package sandbox is the built-in channel: a simulated phone network for trying the whole
// messaging API with no outside account. Its instances pair like phone channels do (a QR
// code and a pairing code), get a +1555 number, and message each other within a workspace;
// any other number is a simulated peer that answers with delivered and read receipts (and
// echoes, when asked). Numbers +1555000xxxx are not on the network, for trying failures.
// docs/messaging.md describes it for users.
package sandbox

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/backend/channels"
	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Name is the channel's name.
const Name = "sandbox"

// UnreachablePrefix starts the numbers that are not on the sandbox network.
const UnreachablePrefix = "+1555000"

// PairingTTL is how long a pairing code stays valid.
const PairingTTL = 10 * time.Minute

// Config settings.
const (
	ConfigAutoPair       = "auto_pair"
	ConfigDeliveredAfter = "delivered_after_ms"
	ConfigReadAfter      = "read_after_ms"
	ConfigEcho           = "echo"
	ConfigToken          = "token"
)

var addressRE = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)

// Driver is the sandbox channel.
type Driver struct {
	host atomic.Pointer[channels.Host]
	now  func() time.Time
}

// New returns the sandbox driver.
func New() *Driver { return &Driver{now: time.Now} }

// WithClock makes the driver read time from now (tests that move the service's clock).
func (d *Driver) WithClock(now func() time.Time) *Driver { d.now = now; return d }

// Bind receives the service's host (emitting events, finding instances by number).
func (d *Driver) Bind(h channels.Host) { d.host.Store(&h) }

func (d *Driver) hostOf() channels.Host {
	h := d.host.Load()
	if h == nil {
		panic("sandbox: driver used before Bind")
	}
	return *h
}

func (d *Driver) Name() string { return Name }

// Capabilities: the sandbox supports everything, so the whole API can be tried on it.
func (d *Driver) Capabilities() channels.Capabilities {
	return channels.Capabilities{Types: domain.MessageTypes, Receipts: []string{domain.MessageDelivered, domain.MessageRead},
		Reply: true, Edit: true, Delete: true, MarkRead: true, Typing: true, Groups: true, CreateGroups: true,
		Check: true, Pairing: true, Simulated: true}
}

func (d *Driver) ConfigFields() []channels.ConfigField {
	return []channels.ConfigField{
		{Name: ConfigAutoPair, Type: "bool", Default: false,
			Description: "Pair at once on connect, as if the QR code had been scanned."},
		{Name: ConfigDeliveredAfter, Type: "int", Default: 200, Min: 0, Max: 60000,
			Description: "How long the simulated peer takes to report delivered, in milliseconds."},
		{Name: ConfigReadAfter, Type: "int", Default: 1000, Min: 0, Max: 600000,
			Description: "How long the simulated peer takes to report read, in milliseconds after delivered."},
		{Name: ConfigEcho, Type: "bool", Default: false,
			Description: "The simulated peer answers every message it reads with an echo."},
		{Name: ConfigToken, Type: "string", Secret: true, MaxLength: 200,
			Description: "A stand-in for a provider credential: write-only, shown as ******** once set."},
	}
}

func (d *Driver) ValidateAddress(address string) error {
	if !addressRE.MatchString(address) {
		return fmt.Errorf("must be a phone number in E.164 form, such as +15551234567")
	}
	return nil
}

func reachable(address string) bool {
	return addressRE.MatchString(address) && !strings.HasPrefix(address, UnreachablePrefix)
}

func (d *Driver) Connect(ctx context.Context, in channels.Instance, hasSession bool) (channels.Connection, error) {
	if hasSession && in.Address != "" {
		return channels.Connection{Status: domain.InstanceConnected, Address: in.Address}, nil
	}
	code := pairingCode()
	c := channels.Connection{Status: domain.InstancePairing, PairingCode: code,
		QRPayload: "switchboard-sandbox://pair?instance=" + in.ID + "&code=" + code, ExpiresAt: d.now().Add(PairingTTL)}
	if in.Bool(ConfigAutoPair) {
		addr, err := d.Pair(ctx, in)
		if err != nil {
			return c, err
		}
		// As a phone would after the scan: the session reports itself connected.
		err = d.hostOf().Emit(ctx, 0, channels.Event{InstanceID: in.ID, Kind: channels.EventStatus,
			Status: &channels.Status{Status: domain.InstanceConnected, Address: addr}})
		return c, err
	}
	return c, nil
}

// Pair completes pairing: the instance keeps its number if it had one, else gets a new
// one that no instance of the workspace has.
func (d *Driver) Pair(ctx context.Context, in channels.Instance) (string, error) {
	if in.Address != "" {
		return in.Address, nil
	}
	for range 20 {
		addr := "+1555" + digits(7)
		if strings.HasPrefix(addr, UnreachablePrefix) {
			continue
		}
		_, taken, err := d.hostOf().InstanceByAddress(ctx, in.WorkspaceID, Name, addr)
		if err != nil {
			return "", err
		}
		if !taken {
			return addr, nil
		}
	}
	return "", fmt.Errorf("sandbox: no free number found")
}

func (d *Driver) Disconnect(context.Context, channels.Instance) error { return nil }

// Send delivers to another sandbox instance of the workspace, or to a simulated peer.
func (d *Driver) Send(ctx context.Context, in channels.Instance, m channels.Outbound) (channels.Sent, error) {
	sent := channels.Sent{ProviderMessageID: m.MessageID}
	if !m.Group && !reachable(m.ChatAddress) {
		return sent, &channels.SendError{Code: "recipient_unreachable",
			Message: m.ChatAddress + " is not on the sandbox network", Permanent: true}
	}
	h := d.hostOf()
	inbound := channels.Inbound{ProviderMessageID: m.MessageID, ChatAddress: in.Address, Sender: in.Address,
		Type: m.Type, Content: m.Content, ReplyTo: m.ReplyTo, At: d.now()}
	if m.Content.Reaction != nil {
		r := *m.Content.Reaction
		r.MessageID = m.ReactionTarget
		inbound.Content.Reaction = &r
	}
	peers := []string{m.ChatAddress}
	if m.Group {
		inbound.ChatAddress, inbound.Group, peers = m.ChatAddress, true, m.Participants
	}
	linked := 0
	for _, p := range peers {
		if p == in.Address {
			continue
		}
		id, ok, err := h.InstanceByAddress(ctx, in.WorkspaceID, Name, p)
		if err != nil {
			return sent, err
		}
		if !ok {
			continue
		}
		linked++
		if err := h.Emit(ctx, 0, channels.Event{InstanceID: id, Kind: channels.EventMessage, Message: &inbound}); err != nil {
			return sent, err
		}
	}
	delivered := time.Duration(in.Int(ConfigDeliveredAfter)) * time.Millisecond
	events := []channels.Event{receipt(in.ID, m.MessageID, domain.MessageDelivered, d.now().Add(delivered))}
	if linked == 0 || m.Group {
		// A simulated peer reads it too (an instance reads when its chat is marked read).
		read := delivered + time.Duration(in.Int(ConfigReadAfter))*time.Millisecond
		if err := h.Emit(ctx, read, receipt(in.ID, m.MessageID, domain.MessageRead, d.now().Add(read))); err != nil {
			return sent, err
		}
		if in.Bool(ConfigEcho) && !m.Group && m.Type != domain.TypeReaction {
			echo := channels.Inbound{ProviderMessageID: "echo." + m.MessageID, ChatAddress: m.ChatAddress,
				Sender: m.ChatAddress, Type: domain.TypeText, Content: domain.Content{Text: echoText(m)},
				ReplyTo: m.MessageID, At: d.now().Add(read)}
			if err := h.Emit(ctx, read, channels.Event{InstanceID: in.ID, Kind: channels.EventMessage, Message: &echo}); err != nil {
				return sent, err
			}
		}
	}
	return sent, h.Emit(ctx, delivered, events...)
}

func echoText(m channels.Outbound) string {
	if m.Type == domain.TypeText {
		return "Echo: " + m.Content.Text
	}
	return "Echo: received your " + m.Type
}

func receipt(instanceID, providerID, status string, at time.Time) channels.Event {
	return channels.Event{InstanceID: instanceID, Kind: channels.EventReceipt,
		Receipt: &channels.Receipt{ProviderMessageID: providerID, Status: status, At: at}}
}

// Edit and Delete reach the copies Send delivered: the other instance of a direct chat, or
// a group's member instances.
func (d *Driver) Edit(ctx context.Context, in channels.Instance, m channels.SentMessage, text string) error {
	return d.changeCopies(ctx, in, m, channels.Edit{ProviderMessageID: m.ProviderMessageID, Text: text})
}

func (d *Driver) Delete(ctx context.Context, in channels.Instance, m channels.SentMessage) error {
	return d.changeCopies(ctx, in, m, channels.Edit{ProviderMessageID: m.ProviderMessageID, Deleted: true})
}

// changeCopies emits e to the instances that received m, naming the chat as they know it
// (the sender's number for a direct chat, the group's address for a group).
func (d *Driver) changeCopies(ctx context.Context, in channels.Instance, m channels.SentMessage, e channels.Edit) error {
	e.ChatAddress = in.Address
	var peers []string // the chat's address
	if m.Group {
		e.ChatAddress, peers = m.ChatAddress, m.Participants
		if peers == nil {
			peers = []string{} // a group without members: nobody to tell
		}
	}
	return d.toPeers(ctx, in, m.ChatAddress, peers, channels.Event{Kind: channels.EventEdit, Edit: &e})
}

// toPeers emits ev to the instances among addresses (the chat's address when nil).
func (d *Driver) toPeers(ctx context.Context, in channels.Instance, chatAddress string, addresses []string, ev channels.Event) error {
	if addresses == nil {
		addresses = []string{chatAddress}
	}
	h := d.hostOf()
	for _, a := range addresses {
		if a == in.Address {
			continue
		}
		id, ok, err := h.InstanceByAddress(ctx, in.WorkspaceID, Name, a)
		if err != nil {
			return err
		}
		if ok {
			e := ev
			e.InstanceID = id
			if err := h.Emit(ctx, 0, e); err != nil {
				return err
			}
		}
	}
	return nil
}

// MarkRead sends read receipts to the instances that sent the messages.
func (d *Driver) MarkRead(ctx context.Context, in channels.Instance, chatAddress string, read []channels.Received) error {
	h := d.hostOf()
	for _, r := range read {
		id, ok, err := h.InstanceByAddress(ctx, in.WorkspaceID, Name, r.Sender)
		if err != nil {
			return err
		}
		if ok {
			if err := h.Emit(ctx, 0, receipt(id, r.ProviderMessageID, domain.MessageRead, d.now())); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *Driver) Typing(context.Context, channels.Instance, channels.Indicator) error { return nil }

func (d *Driver) Check(ctx context.Context, in channels.Instance, addresses []string) ([]bool, error) {
	out := make([]bool, len(addresses))
	for i, a := range addresses {
		out[i] = reachable(a)
	}
	return out, nil
}

// CreateGroup makes a group owned by the instance; member instances learn of it.
func (d *Driver) CreateGroup(ctx context.Context, in channels.Instance, g channels.GroupInfo) (channels.GroupInfo, error) {
	g.Address = "sbxg_" + strings.ToLower(digits(18))
	g.Owner = in.Address
	ps := []domain.Participant{{Address: in.Address, Role: domain.RoleAdmin}}
	for _, p := range g.Participants {
		if p.Address != in.Address {
			ps = append(ps, domain.Participant{Address: p.Address, Role: domain.RoleMember})
		}
	}
	g.Participants = ps
	return g, d.toPeers(ctx, in, "", addressesOf(ps), channels.Event{Kind: channels.EventGroup,
		Group: &channels.Group{Action: channels.GroupCreated, Info: g}})
}

func (d *Driver) UpdateGroup(ctx context.Context, in channels.Instance, g channels.GroupInfo) error {
	return d.toPeers(ctx, in, "", addressesOf(g.Participants), channels.Event{Kind: channels.EventGroup,
		Group: &channels.Group{Action: channels.GroupUpdated, Info: g}})
}

// ChangeParticipants tells every member, old and new, and the removed their removal. As on
// WhatsApp, only a group admin may add or remove members (a member could otherwise remove
// the owner and leave the group without an admin).
func (d *Driver) ChangeParticipants(ctx context.Context, in channels.Instance, g channels.GroupInfo, add, remove []string) error {
	if !isAdmin(g.Participants, in.Address) {
		return &channels.SendError{Code: "forbidden", Permanent: true,
			Message: "only a group admin can add or remove participants"}
	}
	after := domain.ChangeParticipants(g.Participants, add, remove)
	info := g
	info.Participants = after
	if err := d.toPeers(ctx, in, "", addressesOf(after), channels.Event{Kind: channels.EventGroup,
		Group: &channels.Group{Action: channels.GroupParticipants, Info: info, Added: add, Removed: remove}}); err != nil {
		return err
	}
	return d.toPeers(ctx, in, "", remove, channels.Event{Kind: channels.EventGroup,
		Group: &channels.Group{Action: channels.GroupRemoved, Info: info, Removed: remove}})
}

// LeaveGroup tells the other members the instance left.
func (d *Driver) LeaveGroup(ctx context.Context, in channels.Instance, g channels.GroupInfo) error {
	after := domain.ChangeParticipants(g.Participants, nil, []string{in.Address})
	if len(after) > 0 && !hasAdmin(after) {
		// As on WhatsApp, a group its last admin leaves gets a new one (the longest member),
		// or nobody could change its members again.
		after[0].Role = domain.RoleAdmin
	}
	info := g
	info.Participants = after
	return d.toPeers(ctx, in, "", addressesOf(after), channels.Event{Kind: channels.EventGroup,
		Group: &channels.Group{Action: channels.GroupParticipants, Info: info, Removed: []string{in.Address}}})
}

func isAdmin(ps []domain.Participant, address string) bool {
	for _, p := range ps {
		if p.Address == address {
			return p.Role == domain.RoleAdmin
		}
	}
	return false
}

func hasAdmin(ps []domain.Participant) bool {
	for _, p := range ps {
		if p.Role == domain.RoleAdmin {
			return true
		}
	}
	return false
}

func addressesOf(ps []domain.Participant) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Address
	}
	return out
}

// pairingCode is 8 characters of an alphabet without look-alikes, as ABCD-EFGH.
func pairingCode() string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 8)
	for i := range b {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[n.Int64()]
	}
	return string(b[:4]) + "-" + string(b[4:])
}

func digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		d, _ := rand.Int(rand.Reader, big.NewInt(10))
		b[i] = byte('0' + d.Int64())
	}
	return string(b)
}
