package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// scrape reads the metrics listener: every sample by its name summed over its labels,
// and each labelled sample as written (`name{label="…"}`).
func scrape(url string) (map[string]float64, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: %d", resp.StatusCode)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		// name{labels} value   or   name value
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			continue
		}
		name := line[:i]
		if j := strings.IndexByte(name, '{'); j >= 0 {
			out[name] = v // with its labels too
			name = name[:j]
		}
		out[name] += v
	}
	return out, sc.Err()
}

// gcURL asks the server for a heap profile after a garbage collection (its pprof listener):
// the heap read right after it is the live heap, the figure to compare (between
// collections the heap swings several times the live heap).
var gcURL string

// memory is the process's figures at one moment: each the mean of a few samples, and the
// live heap (the lowest heap read right after a forced collection).
type memory struct {
	label      string
	at         time.Duration // since traffic started
	rss, heap  float64
	heapMin    float64 // the live heap: the lowest heap read right after a forced collection
	goroutines float64
	fds        float64
	samples    int
}

var memoryMetrics = []string{"process_resident_memory_bytes", "go_memstats_heap_alloc_bytes", "go_goroutines", "process_open_fds"}

// sampleMemory scrapes n times, every interval, and averages.
func sampleMemory(url, label string, at time.Duration, n int, interval time.Duration) memory {
	m := memory{label: label, at: at}
	for i := range n {
		if i > 0 {
			time.Sleep(interval)
		}
		if gcURL != "" {
			if resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(gcURL); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}
		s, err := scrape(url)
		if err != nil {
			continue
		}
		m.rss += s[memoryMetrics[0]]
		m.heap += s[memoryMetrics[1]]
		if h := s[memoryMetrics[1]]; m.heapMin == 0 || h < m.heapMin {
			m.heapMin = h
		}
		m.goroutines += s[memoryMetrics[2]]
		m.fds += s[memoryMetrics[3]]
		m.samples++
	}
	if m.samples > 0 {
		k := float64(m.samples)
		m.rss, m.heap, m.goroutines, m.fds = m.rss/k, m.heap/k, m.goroutines/k, m.fds/k
	}
	return m
}

// nonZero lists the labelled samples of a metric that are not zero.
func nonZero(m map[string]float64, name string) []string {
	var out []string
	for k, v := range m {
		if strings.HasPrefix(k, name+"{") && v != 0 {
			out = append(out, fmt.Sprintf("%s %g", k[len(name):], v))
		}
	}
	sort.Strings(out)
	return out
}
