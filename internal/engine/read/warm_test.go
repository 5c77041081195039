package read

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// standIn writes a tesseract stand-in that reads its list on stdin (as Tesseract does once its
// model is loaded) and answers, for every image of the list, one word: its own process ID.
func standIn(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "tesseract")
	script := "#!/bin/sh\nn=0\nwhile read -r f; do n=$((n+1)); printf '5\\t%d\\t1\\t1\\t1\\t1\\t0\\t0\\t1\\t1\\t90\\tpid%s\\n' $n $$; done\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// waitingFor is the process started ahead for a command line of bin, or nil.
func waitingFor(bin string) *warm {
	idle.Lock()
	defer idle.Unlock()
	for k, w := range idle.procs {
		if strings.HasPrefix(k, bin+"\x00") {
			return w
		}
	}
	return nil
}

// A list is read by the process started for it ahead of time, and another is started for the
// next; one that was stopped while it waited is replaced without the reading failing.
func TestListsAreReadByProcessesStartedAhead(t *testing.T) {
	bin := standIn(t)
	tess := NewTesseract(bin, "", 1)
	crops := []*image.Gray{image.NewGray(image.Rect(0, 0, 8, 8)), image.NewGray(image.Rect(0, 0, 8, 8))}
	read := func() string {
		t.Helper()
		rs, err := tess.readMany(context.Background(), crops, "jpn_vert", 5)
		if err != nil || len(rs) != 2 || rs[0].Text != rs[1].Text {
			t.Fatalf("readMany = %+v, %v", rs, err)
		}
		return strings.TrimPrefix(rs[0].Text, "pid")
	}
	waiting := func() *warm {
		t.Helper()
		w := waitingFor(bin)
		if w == nil {
			t.Fatal("no process waits for the next list")
		}
		return w
	}
	pid := func(w *warm) string { return strconv.Itoa(w.cmd.Process.Pid) }
	first := read()
	next := waiting()
	if first == pid(next) {
		t.Fatalf("the first list was read by %s, which is still waiting", first)
	}
	if second := read(); second != pid(next) {
		t.Fatalf("the second list was read by %s, not by %s, which waited for it", second, pid(next))
	}
	// Stop the one now waiting: the next list is still read.
	next = waiting()
	if err := next.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if third := read(); third == pid(next) {
		t.Fatalf("the third list was read by %s, which had been stopped", third)
	}
}

// A process waits for its list only so long, then leaves: an idle worker keeps no model loaded.
func TestAProcessStartedAheadLeavesWhenUnused(t *testing.T) {
	old := idleFor
	idleFor = 50 * time.Millisecond
	t.Cleanup(func() { idleFor = old })
	bin := standIn(t)
	tess := NewTesseract(bin, "", 1)
	if _, err := tess.readMany(context.Background(), []*image.Gray{image.NewGray(image.Rect(0, 0, 8, 8))}, "jpn", 7); err != nil {
		t.Fatal(err)
	}
	w := waitingFor(bin)
	if w == nil {
		t.Fatal("no process was started ahead for the next list")
	}
	if err := <-w.done; err != nil { // it leaves, without being killed
		t.Fatalf("the unused process ended with %v", err)
	}
	if waitingFor(bin) != nil {
		t.Fatal("the process that left is still offered")
	}
}
