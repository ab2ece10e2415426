package index

import (
	"encoding/json"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

type fakeSegment struct {
	id   uint64
	docs int64
}

func (s fakeSegment) Id() uint64          { return s.id }
func (s fakeSegment) FullSize() int64     { return s.docs }
func (s fakeSegment) LiveSize() int64     { return s.docs }
func (s fakeSegment) HasVector() bool     { return false }
func (s fakeSegment) FileSize() int64     { return s.docs * 400 }
func (s fakeSegment) LiveFileSize() int64 { return s.docs * 400 }

// planFor runs scorch's merge planner on segments of the given sizes and
// returns the sizes each task merges.
func planFor(t *testing.T, o *mergeplan.MergePlanOptions, sizes []int64) [][]int64 {
	t.Helper()
	if err := mergeplan.ValidateMergePlannerOptions(o); err != nil {
		t.Fatal(err)
	}
	var segs []mergeplan.Segment
	for i, n := range sizes {
		segs = append(segs, fakeSegment{id: uint64(i + 1), docs: n})
	}
	plan, err := mergeplan.Plan(segs, o)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int64
	if plan == nil {
		return nil
	}
	for _, task := range plan.Tasks {
		var ts []int64
		for _, s := range task.Segments {
			ts = append(ts, s.FullSize())
		}
		out = append(out, ts)
	}
	return out
}

// TestBuildMergeOnce: during a build, a group of batch segments is merged
// into one once more than a group waits (scorch's budget allows a few
// more), and a merged group
// is never merged again; the final merge takes the batch segments left and
// nothing else. So every document is rewritten once.
func TestBuildMergeOnce(t *testing.T) {
	const batch = 1000
	var o mergeplan.MergePlanOptions
	b, _ := json.Marshal(buildMerge(batch))
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	merged := int64(mergeGroup*batch + 900) // batches run a little over
	small := func(n int) []int64 {
		var s []int64
		for i := range n {
			s = append(s, int64(batch+i%60))
		}
		return s
	}
	if tasks := planFor(t, &o, small(mergeGroup)); len(tasks) != 0 {
		t.Errorf("a group's worth of batch segments merged early: %v", tasks)
	}
	tasks := planFor(t, &o, small(2*mergeGroup))
	if len(tasks) != 1 || len(tasks[0]) != mergeGroup {
		t.Fatalf("two groups waiting: tasks %v, want one of %d segments", tasks, mergeGroup)
	}
	with := append([]int64{merged, merged, merged, merged, merged}, small(mergeGroup+3)...)
	for _, task := range planFor(t, &o, with) {
		for _, n := range task {
			if n >= merged {
				t.Errorf("a merged segment merged again: %v", task)
			}
		}
	}
	final := finalMerge(batch)
	tasks = planFor(t, final, append([]int64{merged, merged, merged}, small(mergeGroup-1)...))
	if len(tasks) != 1 || len(tasks[0]) != mergeGroup-1 {
		t.Errorf("final merge: tasks %v, want the %d batch segments in one", tasks, mergeGroup-1)
	}
	for _, task := range tasks {
		for _, n := range task {
			if n >= merged {
				t.Errorf("final merge rewrites a merged segment: %v", task)
			}
		}
	}
}
