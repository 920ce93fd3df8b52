package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var screenshots = flag.String("screenshots", "", "write TestReportScreenshot's report, screenshot and PDF to `DIR` (default: a temporary directory)")

// chromium is the headless Chromium the report tests drive: Debian's
// /usr/bin/chromium (apt-get install chromium), else one on the PATH. The
// tests skip without one.
func chromium(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed (apt-get install chromium)")
	return ""
}

// runChromium runs headless Chromium, isolated (a fresh profile, no
// network services), on args, within two minutes; it returns stdout.
func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--force-device-scale-factor=1",
		"--user-data-dir=" + t.TempDir()}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	return out
}

// layoutCheck is appended to a copy of report.html: Chromium runs it
// once the page is laid out and writes what it measured into the DOM.
// Each SVG text's box is the glyph cells Chromium drew (getBBox in the
// text's frame, through its screen transform, so rotated labels stay
// quads), trimmed of the space above the capitals; two boxes that share
// more than half a pixel overlap, as TestGallery measures them in
// roofline's own drawing.
const layoutCheck = `<script>
(function () {
  var out = {page: document.documentElement.scrollWidth, view: window.innerWidth, figures: [], overlaps: [], outside: [], tables: []};
  function quad(t) {
    var b = t.getBBox(), m = t.getScreenCTM(), top = b.y + 0.2 * b.height;
    return [[b.x, top], [b.x + b.width, top], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(function (p) {
      var q = new DOMPoint(p[0], p[1]).matrixTransform(m);
      return [q.x + window.scrollX, q.y + window.scrollY];
    });
  }
  function separated(a, b) {
    var shapes = [a, b];
    for (var s = 0; s < 2; s++) {
      for (var i = 0; i < 4; i++) {
        var p = shapes[s][i], q = shapes[s][(i + 1) % 4], nx = p[1] - q[1], ny = q[0] - p[0], n = Math.hypot(nx, ny);
        if (n === 0) continue;
        nx /= n; ny /= n;
        var pa = a.map(function (v) { return v[0] * nx + v[1] * ny; }), pb = b.map(function (v) { return v[0] * nx + v[1] * ny; });
        if (Math.min(Math.max.apply(null, pa), Math.max.apply(null, pb)) - Math.max(Math.min.apply(null, pa), Math.min.apply(null, pb)) < 0.5) return true;
      }
    }
    return false;
  }
  document.querySelectorAll('figure').forEach(function (fig) {
    var svg = fig.querySelector('svg'), r = svg.getBoundingClientRect();
    var texts = Array.prototype.filter.call(svg.querySelectorAll('text'), function (t) { return t.textContent.trim() !== ''; });
    var qs = texts.map(quad), labels = texts.map(function (t) { return t.textContent; });
    out.figures.push({id: fig.id, width: r.width, height: r.height, figure: fig.getBoundingClientRect().height, texts: labels});
    for (var i = 0; i < qs.length; i++) {
      qs[i].forEach(function (p) {
        if (p[0] < r.left + window.scrollX - 1 || p[0] > r.right + window.scrollX + 1 || p[1] < r.top + window.scrollY - 1 || p[1] > r.bottom + window.scrollY + 1) out.outside.push(fig.id + ': ' + labels[i]);
      });
      for (var j = i + 1; j < qs.length; j++) {
        if (!separated(qs[i], qs[j])) out.overlaps.push(fig.id + ': "' + labels[i] + '" and "' + labels[j] + '"');
      }
    }
  });
  var body = document.body.getBoundingClientRect();
  document.querySelectorAll('table').forEach(function (t, i) {
    var r = t.getBoundingClientRect();
    if (r.right > body.right + 1) out.tables.push('table ' + (i + 1) + ' (' + t.querySelector('th').textContent + ') ends ' + Math.round(r.right - body.right) + ' px past the page');
  });
  var pre = document.createElement('pre');
  pre.id = 'layout-check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

// layout is what layoutCheck measured.
type layout struct {
	Page, View int
	Figures    []struct {
		ID                    string
		Width, Height, Figure float64
		Texts                 []string
	}
	Overlaps, Outside, Tables []string
}

// measure loads html (with layoutCheck) in Chromium at width × 2000 px
// and returns what it measured.
func measure(t *testing.T, bin, dir, name, html string, width int) layout {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Replace(html, "</body>", layoutCheck+"\n</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, bin, "--window-size="+itoa(width)+",2000", "--dump-dom", "file://"+p))
	i := strings.Index(dom, `<pre id="layout-check">`)
	if i < 0 {
		t.Fatalf("%s: the layout check did not run", name)
	}
	js := dom[i+len(`<pre id="layout-check">`):]
	js = js[:strings.Index(js, "</pre>")]
	js = strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&nbsp;", "\u00a0").Replace(js)
	var l layout
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

func itoa(n int) string { return strconv.Itoa(n) }

// checkShot says whether a screenshot is 1280 px wide and shows
// something: at least 1 % of its pixels dark.
func checkShot(t *testing.T, path string) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(must(os.ReadFile(path))))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	if b.Dx() != 1280 || dark*4*100 < b.Dx()*b.Dy() {
		t.Errorf("%s: %v with %d dark pixels in 4: blank", path, b, dark)
	}
}

// TestReportScreenshot is issue 28's report, viewed and printed: a study
// of three boards × three models × three formats with the Jetson's
// llama-bench file, opened at 100 % in headless Chromium (1280 px wide).
// Every figure is there, and in the page Chromium lays out no two texts
// of a figure overlap and none lies outside it; the measured runs are
// drawn; no table runs past the page. Laid out as printed (the print
// stylesheet on a 190 mm A4 text width), every figure with its caption
// fits one page, so break-inside: avoid keeps it whole. A screenshot and
// the printed PDF are written (-screenshots DIR keeps them, with a
// screenshot of each figure).
func TestReportScreenshot(t *testing.T) {
	bin := chromium(t)
	dir := *screenshots
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	if _, errOut, code := runCLI("report", boardsStudy, "-o", out, "--force"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	html := string(must(os.ReadFile(filepath.Join(out, "report.html"))))

	// On screen, at 100 %.
	l := measure(t, bin, dir, "screen.html", html, 1280)
	l0 := l
	var kinds []string
	for _, f := range l.Figures {
		kinds = append(kinds, strings.TrimPrefix(f.ID, "figure-"))
		if f.Width < 600 || f.Height < 300 {
			t.Errorf("%s is drawn %.0f × %.0f px", f.ID, f.Width, f.Height)
		}
		if f.ID == "figure-roofline" || f.ID == "figure-tpot-context" || f.ID == "figure-ttft-prompt" {
			n := 0
			for _, tx := range f.Texts {
				if strings.HasPrefix(tx, "MBU ") || strings.HasPrefix(tx, "MFU ") {
					n++
				}
			}
			if want := map[string]int{"figure-roofline": 6, "figure-tpot-context": 4, "figure-ttft-prompt": 2}[f.ID]; n != want {
				t.Errorf("%s: %d measured runs labelled; want %d", f.ID, n, want)
			}
		}
	}
	if got := strings.Join(kinds, ","); got != "plan,tpot-context,ttft-prompt,memory,roofline,compare" {
		t.Errorf("figures %s; want every default one", got)
	}
	for _, o := range l.Overlaps {
		t.Errorf("texts overlap in Chromium: %s", o)
	}
	for _, o := range l.Outside {
		t.Errorf("text outside its figure in Chromium: %s", o)
	}
	for _, o := range l.Tables {
		t.Errorf("at 1280 px: %s", o)
	}
	if l.Page > l.View {
		t.Errorf("the page is %d px wide in a %d px window", l.Page, l.View)
	}

	// As printed: the print stylesheet, on A4 less 10 mm margins
	// (190 × 277 mm at 96 px/in: 718 × 1047 px).
	printed := strings.Replace(html, "@media print{", "@media all{", 1)
	l = measure(t, bin, dir, "print.html", printed, 718)
	for _, f := range l.Figures {
		if f.Figure > 1047 {
			t.Errorf("printed, %s with its caption is %.0f px tall, more than an A4 page (1047 px): it would split", f.ID, f.Figure)
		}
	}
	if !strings.Contains(html, "figure,table,tr,li{break-inside:avoid") {
		t.Error("the print stylesheet does not keep figures and tables whole (break-inside: avoid)")
	}

	// The screenshots a reader would see: the page's top, and with
	// -screenshots each figure at 100 % in the report's style, on a page
	// of its own (a headless screenshot does not scroll), to look at.
	shot := filepath.Join(dir, "report.png")
	runChromium(t, bin, "--window-size=1280,4000", "--screenshot="+shot, "file://"+filepath.Join(out, "report.html"))
	checkShot(t, shot)
	head := html[:strings.Index(html, "<body>")+len("<body>")]
	for _, f := range l0.Figures {
		if *screenshots == "" {
			break
		}
		i := strings.Index(html, `<figure id="`+f.ID+`">`)
		fig := html[i : i+strings.Index(html[i:], "</figure>")+len("</figure>")]
		page := filepath.Join(dir, f.ID+".html")
		if err := os.WriteFile(page, []byte(head+fig+"</body></html>"), 0o644); err != nil {
			t.Fatal(err)
		}
		shot := filepath.Join(dir, f.ID+".png")
		runChromium(t, bin, "--window-size=1280,"+itoa(int(f.Figure)+80), "--screenshot="+shot, "file://"+page)
		checkShot(t, shot)
	}
	pdf := filepath.Join(dir, "report.pdf")
	runChromium(t, bin, "--no-pdf-header-footer", "--print-to-pdf="+pdf, "file://"+filepath.Join(out, "report.html"))
	p := must(os.ReadFile(pdf))
	if pages := bytes.Count(p, []byte("/Type /Page")) - bytes.Count(p, []byte("/Type /Pages")); !bytes.HasPrefix(p, []byte("%PDF")) || pages < 5 {
		t.Errorf("Chromium printed %d pages", pages)
	}
}
