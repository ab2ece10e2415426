package soak

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for a person.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "tree: %s (%d Go files), indexed in %.1f s; seed %d\n", r.Tree, r.TreeFiles, r.IndexSeconds, r.Seed)
	r.Idle.writeText(w, "idle", "session")
	r.Load.writeText(w, "load", "sessions")
	if r.Idle.Assemble.P95 > 0 {
		fmt.Fprintf(w, "context/assemble p95 under load / idle: %.1f×\n", r.P95Ratio)
	}
	s := r.RSSSummary
	fmt.Fprintf(w, "RSS: %.0f MB after the idle session; load: %.0f MB at warm-up (25–35 %%), %.0f MB at the end (last 10 %%), max %.0f MB, growth %+.0f %%\n",
		s.AfterIdleMB, s.WarmMB, s.EndMB, s.MaxMB, 100*s.Growth)
	fmt.Fprintf(w, "RSS over time (s:MB): %s\n", rssLine(r.RSS))
	g := r.Goroutines
	fmt.Fprintf(w, "goroutines: %d before any session, %d after the idle session, %d after the load's sessions ended\n", g.BeforeSessions, g.AfterIdle, g.End)
	fmt.Fprintf(w, "ctxls serve exit status after SIGTERM: %d\n", r.ServerExit)
	if r.MCP != nil {
		r.MCP.writeText(w, "mcp", "clients")
		fmt.Fprintf(w, "  files rewritten on disk, seen by the next find_symbol: %d (missed %d); ctxls mcp max RSS %.0f MB\n",
			r.MCP.Fresh, r.MCP.FreshMisses, r.MCP.Other["rssMaxMB"].Max)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.Pass {
		fmt.Fprintln(w, "PASS: every promise held")
		return
	}
	fmt.Fprintf(w, "FAIL: %d problem(s):\n", len(r.Problems))
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  - %s\n", p)
	}
	fmt.Fprintf(w, "logs: %s\n", strings.Join(r.Logs, ", "))
}

// writeText writes one phase.
func (p *PhaseReport) writeText(w io.Writer, name, clients string) {
	fmt.Fprintf(w, "%s: %d %s, %.1f s, %d requests, %d errors\n", name, p.Clients, clients, p.Seconds, p.Requests(), p.Errors())
	var methods []string
	for m := range p.Methods {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for _, m := range methods {
		c := p.Methods[m]
		fmt.Fprintf(w, "  %-22s %5d requests, %d errors", m, c.Requests, c.Errors)
		if c.Cancelled > 0 {
			fmt.Fprintf(w, ", %d cancelled (%d answered RequestCancelled)", c.Cancelled, c.CancelledAnswered)
		}
		if len(c.ErrorCodes) > 0 {
			fmt.Fprintf(w, " %v", c.ErrorCodes)
		}
		fmt.Fprintln(w)
	}
	if len(p.Notifications) > 0 {
		var ns []string
		for n, c := range p.Notifications {
			ns = append(ns, fmt.Sprintf("%s %d", n, c))
		}
		sort.Strings(ns)
		fmt.Fprintf(w, "  notifications: %s\n", strings.Join(ns, ", "))
	}
	lat := func(label string, l Latency) {
		if l.N > 0 {
			fmt.Fprintf(w, "  %-30s n %4d  p50 %7.1f ms  p95 %7.1f ms  max %7.1f ms\n", label, l.N, l.P50, l.P95, l.Max)
		}
	}
	lat("assemble", p.Assemble)
	lat("assemble, index complete", p.AssembleComplete)
	lat("assemble, while indexing", p.AssembleIndexing)
	var others []string
	for k := range p.Other {
		if k != "rssMaxMB" {
			others = append(others, k)
		}
	}
	sort.Strings(others)
	for _, k := range others {
		lat(k, p.Other[k])
	}
	c := p.Checks
	fmt.Fprintf(w, "  checked %d answers (%d while indexing), %d parts: %d buffer parts, %d stale (%d while indexing); %d disk parts, %d mismatched, %d another session's buffer; %d over budget; %d paths outside\n",
		c.Answers, c.IndexingAnswers, c.Parts, c.BufferParts, c.StaleBufferParts, c.StaleWhileIndexing, c.DiskParts, c.DiskMismatches, c.PeerBufferParts, c.BudgetExceeded, c.PathsOutside)
	for _, f := range p.Failures {
		fmt.Fprintf(w, "    ! %s\n", f)
	}
	for _, e := range p.ClientErrors {
		fmt.Fprintf(w, "    ! client: %s\n", e)
	}
}

// rssLine is the RSS samples, one in every few so that the line stays
// short.
func rssLine(samples []RSSSample) string {
	step := max(1, len(samples)/24)
	var parts []string
	for i := 0; i < len(samples); i += step {
		parts = append(parts, fmt.Sprintf("%.0f:%.0f", samples[i].T, samples[i].MB))
	}
	if n := len(samples); n > 0 && (n-1)%step != 0 {
		parts = append(parts, fmt.Sprintf("%.0f:%.0f", samples[n-1].T, samples[n-1].MB))
	}
	return strings.Join(parts, " ")
}
