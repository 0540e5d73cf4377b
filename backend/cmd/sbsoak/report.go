package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

type report struct {
	cfg          config
	recs         []record
	faults       []*fault
	mems         []memory
	v            *verification
	began, ended time.Time
	drained      time.Duration
	skipped      int64
	metrics      map[string]float64
	serverLog    logFindings
	pgVersion    string
	left         []string // jobs left when the queues did not drain
	stuck        []string // and what the jobs table says of them
}

// surfaceOrder is the order of the tables.
var surfaceOrder = []string{"models", "events", "graphql", mutationSurface, "sends", "redirects", "hooks"}

// recovery is, per surface, when its first success after the database came back was
// answered (zero when none was).
func (r *report) recovery(f *fault) map[string]time.Time {
	out := map[string]time.Time{}
	for _, rec := range r.recs {
		if rec.out != okAnswer || rec.start.Before(f.back) {
			continue
		}
		if t, ok := out[rec.surface]; !ok || rec.end.Before(t) {
			out[rec.surface] = rec.end
		}
	}
	return out
}

// inOutage tells whether rec overlaps a fault: from its start to its surface's first
// success after the database came back, plus the slack.
func (r *report) inOutage(rec record, recov []map[string]time.Time) int {
	for i, f := range r.faults {
		end, ok := recov[i][rec.surface]
		if !ok {
			end = r.ended.Add(time.Hour) // never recovered: the rest of the run
		}
		if !rec.end.Before(f.start) && !rec.start.After(end.Add(r.cfg.slack)) {
			return i
		}
	}
	return -1
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
func mb(b float64) string       { return fmt.Sprintf("%.1f MB", b/1e6) }

// print writes the report and tells whether every target was met.
func (r *report) print(w io.Writer) bool {
	c := r.cfg
	ok := true
	var verdicts []string
	verdict := func(pass bool, what string) {
		mark := "PASS"
		if !pass {
			mark, ok = "FAIL", false
		}
		verdicts = append(verdicts, fmt.Sprintf("  %s  %s", mark, what))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "== Switchboard soak ==")
	fmt.Fprintf(w, "command: %s\n", strings.Join(append([]string{filepath.Base(os.Args[0])}, os.Args[1:]...), " "))
	fmt.Fprintf(w, "parameters: -seconds %d -rate %.0f -stop %s -slack %s -mutate-every %s; binary %s; %s %s/%s, %d CPUs; PostgreSQL %s\n",
		c.seconds, c.rate, c.stopFor, c.slack, c.mutateEvery, c.bin, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), r.pgVersion)
	fmt.Fprintf(w, "traffic: %s to %s (%s)\n\n", r.began.Format("15:04:05"), r.ended.Format("15:04:05"), r.ended.Sub(r.began).Round(time.Second))

	recov := make([]map[string]time.Time, len(r.faults))
	for i, f := range r.faults {
		recov[i] = r.recovery(f)
	}
	type counts struct {
		total                                      int
		byOut                                      [6]int
		inOutage, outageOK, outage503, outageOther int
		badOutside                                 int // 5xx or no answer outside outages
		codes                                      map[string]int
	}
	per := map[string]*counts{}
	var all counts
	badExamples := []string{}
	for _, rec := range r.recs {
		cs := per[rec.surface]
		if cs == nil {
			cs = &counts{codes: map[string]int{}}
			per[rec.surface] = cs
		}
		for _, x := range []*counts{cs, &all} {
			x.total++
			x.byOut[rec.out]++
		}
		if rec.code != "" {
			cs.codes[fmt.Sprintf("%d %s", rec.status, rec.code)]++
		}
		if r.inOutage(rec, recov) >= 0 {
			for _, x := range []*counts{cs, &all} {
				x.inOutage++
				switch rec.out {
				case okAnswer:
					x.outageOK++
				case unavailable:
					x.outage503++
				default:
					x.outageOther++
				}
			}
			if rec.out != okAnswer && rec.out != unavailable && len(badExamples) < 10 {
				badExamples = append(badExamples, fmt.Sprintf("in outage: %s at +%s: %d %s (%s)", rec.surface, rec.start.Sub(r.began).Round(time.Millisecond), rec.status, rec.code, rec.out))
			}
			continue
		}
		if rec.out == serverError || rec.out == bad503 || rec.out == unavailable || rec.out == transportErr || rec.out == clientError {
			for _, x := range []*counts{cs, &all} {
				x.badOutside++
			}
			if len(badExamples) < 10 {
				badExamples = append(badExamples, fmt.Sprintf("outside outages: %s at +%s: %d %s (%s)", rec.surface, rec.start.Sub(r.began).Round(time.Millisecond), rec.status, rec.code, rec.out))
			}
		}
	}
	secs := r.ended.Sub(r.began).Seconds()
	fmt.Fprintf(w, "Requests (%d in all, %.1f/s; %d skipped because %d were in flight)\n", all.total, float64(all.total)/secs, r.skipped, c.maxInflight)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "surface\trequests\tok\t503\t5xx\t4xx\tno answer\tin outages\t…ok\t…503\t…other\tbad outside\t")
	row := func(name string, x *counts) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, x.total, x.byOut[okAnswer],
			x.byOut[unavailable]+x.byOut[bad503], x.byOut[serverError], x.byOut[clientError], x.byOut[transportErr],
			x.inOutage, x.outageOK, x.outage503, x.outageOther, x.badOutside)
	}
	for _, name := range surfaceOrder {
		if x := per[name]; x != nil {
			row(name, x)
		}
	}
	row("all", &all)
	tw.Flush()
	fmt.Fprintln(w, "(503 = with Retry-After, or GraphQL UNAVAILABLE; \"bad outside\" = anything but success outside the outages)")
	var codeLines []string
	for _, name := range surfaceOrder {
		if x := per[name]; x != nil && len(x.codes) > 0 {
			var parts []string
			for k, n := range x.codes {
				parts = append(parts, fmt.Sprintf("%s ×%d", k, n))
			}
			sort.Strings(parts)
			codeLines = append(codeLines, fmt.Sprintf("  %s: %s", name, strings.Join(parts, ", ")))
		}
	}
	if len(codeLines) > 0 {
		fmt.Fprintln(w, "error answers by surface (status code):")
		for _, l := range codeLines {
			fmt.Fprintln(w, l)
		}
	}
	for _, e := range badExamples {
		fmt.Fprintln(w, "  "+e)
	}
	fmt.Fprintln(w)

	// Faults.
	fmt.Fprintln(w, "Faults (recovery: from pg_ctl returning to the first success of a request sent after it, per surface)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "fault\tat\tdatabase away\t"
	for _, name := range surfaceOrder {
		header += name + "\t"
	}
	fmt.Fprintln(tw, header+"max\t")
	maxRecovery := time.Duration(0)
	for i, f := range r.faults {
		line := fmt.Sprintf("%s\t+%s\t%s\t", f.name, f.start.Sub(r.began).Round(time.Second), f.back.Sub(f.start).Round(time.Millisecond))
		worst := time.Duration(0)
		never := false
		for _, name := range surfaceOrder {
			t, ok := recov[i][name]
			switch {
			case !ok:
				line += "never\t"
				if name != mutationSurface {
					never = true
				}
			default:
				d := t.Sub(f.back)
				line += ms(d) + "\t"
				if name != mutationSurface && d > worst {
					worst = d
				}
			}
		}
		if never {
			line += "never\t"
			worst = time.Hour
		} else {
			line += ms(worst) + "\t"
		}
		maxRecovery = max(maxRecovery, worst)
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	fmt.Fprintf(w, "(%s ticks every %s: not counted in max; requests in an outage: issued or answered between the fault's start and its surface's first success + %s)\n\n", mutationSurface, c.mutateEvery, c.slack)

	// Losses.
	v := r.v
	fmt.Fprintf(w, "Delivery checks (event log: %d events, %d after set-up; queues drained in %s; waited %s for the last deliveries)\n",
		v.logEvents, v.expectedEvents, drainText(r.drained), v.waited.Round(100*time.Millisecond))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "check\texpected\treceived\tlost\tduplicates\tunexpected\tnote")
	losses := 0
	for _, ch := range v.checks {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", ch.name, ch.expected, ch.received, ch.lost, ch.dup, ch.extra, ch.note)
		losses += ch.lost + ch.dup + ch.extra
	}
	tw.Flush()
	for _, ch := range v.checks {
		for _, e := range ch.examples {
			fmt.Fprintf(w, "  %s: %s\n", ch.name, e)
		}
	}
	fmt.Fprintln(w, "mutations answered with a failure (5xx, UNAVAILABLE, no answer) but committed all the same:")
	for _, a := range v.ambiguous {
		fmt.Fprintf(w, "  %s: %d failed answers, %d of them committed\n", a.name, a.failed, a.committed)
	}
	fmt.Fprintf(w, "webhook signatures rejected: %d; deliveries to the churned endpoints: %d\n", len(v.badSignatures), v.churnDeliveries)
	var dl []string
	for st, n := range v.deliveryLog {
		dl = append(dl, fmt.Sprintf("%s %d", st, n))
	}
	sort.Strings(dl)
	fmt.Fprintf(w, "webhook delivery log of the endpoint (GET /webhooks/{id}/deliveries): %s\n", strings.Join(dl, ", "))
	for _, d := range v.deliveryLogOdd {
		fmt.Fprintf(w, "  not succeeded: %s\n", d)
	}
	for i, e := range v.streamEnds {
		if i == 5 {
			fmt.Fprintf(w, "  … %d more stream ends\n", len(v.streamEnds)-5)
			break
		}
		fmt.Fprintf(w, "  subscription stream ended: %s\n", e)
	}
	for i, e := range v.connErrs {
		if i == 5 {
			break
		}
		fmt.Fprintf(w, "  subscription connection lost: %s\n", e)
	}
	fmt.Fprintln(w)

	// Memory.
	fmt.Fprintln(w, "Memory (metrics listener; the mean of the samples at each mark, and the lowest heap sampled)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mark\tat\tRSS\theap alloc\tlive heap\tgoroutines\topen fds\t")
	var ref, end *memory
	for i := range r.mems {
		m := &r.mems[i]
		fmt.Fprintf(tw, "%s\t+%s\t%s\t%s\t%s\t%.0f\t%.0f\t\n", m.label, m.at.Round(time.Second), mb(m.rss), mb(m.heap), mb(m.heapMin), m.goroutines, m.fds)
		switch m.label {
		case "reference":
			ref = m
		case "end":
			end = m
		}
	}
	tw.Flush()
	rssGrowth, heapGrowth := 0.0, 0.0
	if ref != nil && end != nil && ref.samples > 0 && end.samples > 0 {
		rssGrowth, heapGrowth = end.rss/ref.rss-1, end.heapMin/ref.heapMin-1
		fmt.Fprintf(w, "end vs reference (+%s): RSS %+.1f%%, live heap %+.1f%%, heap (mean) %+.1f%%, goroutines %+.1f%%, fds %+.1f%%\n\n",
			ref.at.Round(time.Second), 100*rssGrowth, 100*heapGrowth, 100*(end.heap/ref.heap-1), 100*(end.goroutines/ref.goroutines-1), 100*(end.fds/ref.fds-1))
	}

	// Server log and metrics.
	sl := r.serverLog
	fmt.Fprintf(w, "Server log: %d requests answered 500; %d outage 503s logged as \"request failed\"\n", sl.lines500, sl.logged503)
	var msgs []string
	for k, n := range sl.byMsg {
		msgs = append(msgs, fmt.Sprintf("  %6d  %s", n, k))
	}
	sort.Strings(msgs)
	for _, m := range msgs {
		fmt.Fprintln(w, m)
	}
	for _, e := range sl.examples {
		fmt.Fprintln(w, "  e.g. "+e)
	}
	fmt.Fprintf(w, "metrics at the end: listener reconnects %.0f, dropped subscribers %.0f, clicks written %.0f, clicks dropped %.0f, job failures %.0f, job retries %.0f\n\n",
		r.metrics["switchboard_listener_reconnects_total"], r.metrics["switchboard_bus_dropped_subscribers_total"],
		r.metrics["switchboard_link_clicks_written_total"], r.metrics["switchboard_link_clicks_dropped_total"],
		r.metrics["switchboard_job_failures_total"], r.metrics["switchboard_job_retries_total"])

	if len(r.stuck) > 0 {
		fmt.Fprintln(w, "Jobs left in the jobs table after the drain:")
		for _, l := range r.stuck {
			fmt.Fprintln(w, "  "+l)
		}
		fmt.Fprintln(w)
	}

	// Targets.
	verdict(losses == 0 && len(v.badSignatures) == 0, fmt.Sprintf("nothing lost or duplicated (%d lost/duplicated/unexpected, %d bad signatures)", losses, len(v.badSignatures)))
	verdict(all.badOutside == 0, fmt.Sprintf("no 5xx, 4xx or unanswered request outside outages (%d)", all.badOutside))
	verdict(all.outageOther == 0, fmt.Sprintf("every failed answer in an outage a 503 with Retry-After / UNAVAILABLE (%d others)", all.outageOther))
	verdict(len(r.faults) == 2 && maxRecovery <= c.recoveryGoal, fmt.Sprintf("recovery within %s of the database's return (worst %s)", c.recoveryGoal, recoveryText(maxRecovery)))
	verdict(ref != nil && end != nil && rssGrowth <= c.memoryGoal && heapGrowth <= c.memoryGoal,
		fmt.Sprintf("RSS and live heap at the end within %.0f%% of the reference mark (%+.1f%%, %+.1f%%)", 100*c.memoryGoal, 100*rssGrowth, 100*heapGrowth))
	notSucceeded := 0
	for st, n := range v.deliveryLog {
		if st != "succeeded" {
			notSucceeded += n
		}
	}
	verdict(notSucceeded == 0, fmt.Sprintf("the endpoint's delivery log records every delivery as succeeded (%d not)", notSucceeded))
	verdict(r.drained >= 0, "job queues drained within 60 s after the traffic"+leftText(r.left))
	fmt.Fprintln(w, "Targets")
	for _, l := range verdicts {
		fmt.Fprintln(w, l)
	}
	if ok {
		fmt.Fprintln(w, "soak: PASS")
	} else {
		fmt.Fprintln(w, "soak: FAIL")
	}
	return ok
}

func drainText(d time.Duration) string {
	if d < 0 {
		return "more than 60 s (not drained)"
	}
	return d.Round(100 * time.Millisecond).String()
}

func recoveryText(d time.Duration) string {
	if d >= time.Hour {
		return "never"
	}
	return ms(d)
}

func leftText(left []string) string {
	if len(left) == 0 {
		return ""
	}
	return " (left: " + strings.Join(left, "; ") + ")"
}
