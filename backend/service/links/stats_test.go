package links

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Time zones are IANA names; anything else (the server's own zone, the system's other
// files, paths, long names) is invalid with param timezone.
func TestZone(t *testing.T) {
	for name, want := range map[string]string{"": "UTC", "UTC": "UTC", "Europe/Berlin": "Europe/Berlin",
		"America/Los_Angeles": "America/Los_Angeles", "Asia/Calcutta": "Asia/Calcutta", // what some browsers say
		"Etc/GMT+5": "Etc/GMT+5", "America/Argentina/ComodRivadavia": "America/Argentina/ComodRivadavia"} {
		loc, err := Zone(name)
		if err != nil || loc.String() != want {
			t.Errorf("Zone(%q) = %v, %v; want %s", name, loc, err, want)
		}
	}
	for _, name := range []string{"Local", "Mars/Olympus_Mons", "europe/berlin", "Europe", "Europe/", "Europe//Berlin",
		"Europe/../Europe/Berlin", "/usr/share/zoneinfo/UTC", "posix/Europe/Berlin", "right/UTC", "localtime",
		"zone.tab", "posixrules", "Europe/Berlin ", "Europe/Berlin\x00", "Europe/Bërlin", "+05:30", "GMT+5:30",
		"A" + strings.Repeat("a", MaxTimezoneLen)} {
		loc, err := Zone(name)
		var e *domain.Error
		if err == nil || !errors.As(err, &e) || e.Code != domain.CodeInvalid || e.Param != "timezone" {
			t.Errorf("Zone(%q) = %v, %v; want invalid timezone", name, loc, err)
		}
	}
}

// stepsOf lists the starts of the days (day) or hours of loc from the one under way at
// from to to, as the API shows them.
func stepsOf(t *testing.T, zone string, from, to string, day bool) []string {
	t.Helper()
	loc, err := Zone(zone)
	if err != nil {
		t.Fatal(err)
	}
	f, err1 := time.Parse(time.RFC3339, from)
	e, err2 := time.Parse(time.RFC3339, to)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	var out []string
	for _, s := range stepStarts(f.In(loc), e.In(loc), day) {
		out = append(out, s.Format(domain.ZonedTimeFormat))
	}
	return out
}

func TestStepStarts(t *testing.T) {
	for _, c := range []struct {
		name, zone, from, to string
		day                  bool
		want                 []string
	}{
		{"Berlin days into summer time: 30 March has 23 hours", "Europe/Berlin", "2025-03-29T10:00:00Z", "2025-04-01T00:00:00+02:00", true,
			[]string{"2025-03-29T00:00:00.000+01:00", "2025-03-30T00:00:00.000+01:00", "2025-03-31T00:00:00.000+02:00"}},
		{"Berlin days out of summer time: 26 October has 25 hours", "Europe/Berlin", "2025-10-25T22:00:00Z", "2025-10-27T23:00:00Z", true,
			[]string{"2025-10-26T00:00:00.000+02:00", "2025-10-27T00:00:00.000+01:00"}},
		{"Berlin hours into summer time: no 02:00", "Europe/Berlin", "2025-03-30T00:00:00Z", "2025-03-30T03:00:00Z", false,
			[]string{"2025-03-30T01:00:00.000+01:00", "2025-03-30T03:00:00.000+02:00", "2025-03-30T04:00:00.000+02:00"}},
		{"Berlin hours out of summer time: 02:00 twice", "Europe/Berlin", "2025-10-25T23:10:00Z", "2025-10-26T02:00:00Z", false,
			[]string{"2025-10-26T01:00:00.000+02:00", "2025-10-26T02:00:00.000+02:00", "2025-10-26T02:00:00.000+01:00"}},
		{"Kolkata days start at 18:30 UTC", "Asia/Kolkata", "2025-04-06T18:29:00Z", "2025-04-07T18:31:00Z", true,
			[]string{"2025-04-06T00:00:00.000+05:30", "2025-04-07T00:00:00.000+05:30", "2025-04-08T00:00:00.000+05:30"}},
		{"Kolkata hours start at :30 UTC", "Asia/Kolkata", "2025-04-07T18:00:00Z", "2025-04-07T19:00:00Z", false,
			[]string{"2025-04-07T23:00:00.000+05:30", "2025-04-08T00:00:00.000+05:30"}},
		{"Kathmandu hours start at :15 UTC", "Asia/Kathmandu", "2025-04-07T18:00:00Z", "2025-04-07T19:00:00Z", false,
			[]string{"2025-04-07T23:00:00.000+05:45", "2025-04-08T00:00:00.000+05:45"}},
		{"Los Angeles days", "America/Los_Angeles", "2025-03-09T07:00:00Z", "2025-03-11T07:00:00Z", true,
			[]string{"2025-03-08T00:00:00.000-08:00", "2025-03-09T00:00:00.000-08:00", "2025-03-10T00:00:00.000-07:00"}},
		{"Santiago skips midnight: the day starts at 01:00", "America/Santiago", "2022-09-10T12:00:00Z", "2022-09-12T12:00:00Z", true,
			[]string{"2022-09-10T00:00:00.000-04:00", "2022-09-11T01:00:00.000-03:00", "2022-09-12T00:00:00.000-03:00"}},
		{"Lord Howe moves its clocks 30 minutes: a half hour", "Australia/Lord_Howe", "2025-10-04T14:00:00Z", "2025-10-04T16:30:00Z", false,
			[]string{"2025-10-05T00:00:00.000+10:30", "2025-10-05T01:00:00.000+10:30", "2025-10-05T02:30:00.000+11:00", "2025-10-05T03:00:00.000+11:00"}},
		{"UTC is UTC", "", "2025-04-07T09:30:00Z", "2025-04-08T00:00:00Z", true, []string{"2025-04-07T00:00:00.000Z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := stepsOf(t, c.zone, c.from, c.to, c.day)
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("steps\n got %v\nwant %v", got, c.want)
			}
		})
	}
}
