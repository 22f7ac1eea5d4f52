package dev.quota.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The results as one PNG, drawn with Java2D (headless): a panel per scenario with a horizontal
 * bar per limiter. This module's bars are blue, the baselines grey.
 */
final class Chart {

    private static final int WIDTH = 1600;
    private static final int ROW_HEIGHT = 28;
    private static final Color OURS = new Color(0x2B6CB0);
    private static final Color BASELINE = new Color(0x9AA5B1);
    private static final Color TEXT = new Color(0x1A202C);

    /** One bar: its label, its length and the text printed after it. */
    record Bar(String label, double value, String text, boolean ours) {
    }

    /** One panel: a title, the unit of the bars, the bars. */
    record Panel(String title, List<Bar> bars) {
    }

    private Chart() {
    }

    /**
     * Scenarios 1, 2 and 5 (decisions per second), 5b (p50 latency), 3 (round trips per request) and
     * 4 (requests per second), each panel with every limiter at every round trip, the round trips one
     * after another.
     */
    static List<Panel> panels(List<RunResult> runs, List<HttpScenario.Row> http, List<Duration> rtts) {
        List<Panel> panels = new ArrayList<>();
        for (String prefix : List.of("1.", "2.", "5.")) {
            List<Bar> bars = new ArrayList<>();
            String title = null;
            for (Duration rtt : rtts) {
                List<RunResult> rows = runs.stream().filter(r -> r.scenario().startsWith(prefix) && r.rtt().equals(rtt))
                        .toList();
                for (RunResult r : rows) {
                    title = title != null ? title : shortTitle(r.scenario());
                    Kind floorKind = prefix.equals("5.") && isTransfer(r) ? Kind.LUA_TRANSFER : Kind.LUA;
                    double floor = rows.stream().filter(x -> x.limiter().equals(floorKind.label()))
                            .mapToDouble(RunResult::throughput).findFirst().orElse(Double.NaN);
                    String text = f("%,.0f/s  %.2fx %s  %.2f round trips  p50 %.2f ms  %.0f µs CPU", r.throughput(),
                            r.throughput() / floor, floorKind == Kind.LUA ? "Lua" : "layered Lua",
                            r.roundTripsPerDecision(), r.p50() / 1e6, r.clientCpuMicros());
                    bars.add(new Bar(r.limiter() + "  " + Network.label(rtt), r.throughput(), text, ours(r)));
                }
            }
            if (title != null) {
                panels.add(new Panel(title + ": decisions per second", bars));
            }
        }
        List<Bar> paced = new ArrayList<>();
        for (Duration rtt : rtts) {
            for (RunResult r : runs) {
                if (r.scenario().startsWith("5b.") && r.rtt().equals(rtt)) {
                    String text = f("p50 %.2f ms  p99 %.2f ms  at %,.0f/s  %.2f round trips", r.p50() / 1e6, r.p99() / 1e6,
                            r.throughput(), r.roundTripsPerDecision());
                    paced.add(new Bar(r.limiter() + "  " + Network.label(rtt), r.p50(), text, ours(r)));
                }
            }
        }
        if (!paced.isEmpty()) {
            panels.add(new Panel("5b. transfer decision, paced at half the slowest peak: p50 latency (shorter is better)",
                    paced));
        }
        List<Bar> flood = new ArrayList<>();
        for (Duration rtt : rtts) {
            for (RunResult r : runs) {
                if (r.scenario().startsWith("3.") && r.rtt().equals(rtt)) {
                    String text = f("%.2f per request;  %.3f per rejected request beyond what admitted ones need",
                            r.roundTripsPerDecision(), r.extraRoundTripsPerRejected());
                    flood.add(new Bar(r.limiter() + "  " + Network.label(rtt), r.roundTripsPerDecision(), text, ours(r)));
                }
            }
        }
        if (!flood.isEmpty()) {
            panels.add(new Panel("3. abusive flood: Redis round trips per request", flood));
        }
        List<Bar> web = new ArrayList<>();
        for (Duration rtt : rtts) {
            for (HttpScenario.Row row : http) {
                if (row.rtt().equals(rtt)) {
                    var r = row.result();
                    String text = f("%,.0f req/s  p50 %.2f ms  p99 %.2f ms", r.throughput(), r.p50() / 1e6,
                            r.p99() / 1e6);
                    web.add(new Bar(row.server() + ", " + row.load() + "  " + Network.label(rtt), r.throughput(), text,
                            row.server().startsWith(HttpScenario.WITH)));
                }
            }
        }
        if (!web.isEmpty()) {
            panels.add(new Panel("4. HTTP end to end: requests per second", web));
        }
        return panels;
    }

    /** A scenario's title without its parenthesised details. */
    private static String shortTitle(String scenario) {
        int paren = scenario.indexOf(" (");
        return paren < 0 ? scenario : scenario.substring(0, paren);
    }

    private static boolean isTransfer(RunResult r) {
        return r.limiter().equals(Kind.QUOTA_TRANSFER.label()) || r.limiter().equals(Kind.LUA_TRANSFER.label());
    }

    static void write(Path file, String subtitle, List<Panel> panels) {
        int height = 70 + panels.stream().mapToInt(Chart::height).sum();
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(TEXT);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 22));
            g.drawString("quota benchmarks", 20, 32);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
            g.drawString(subtitle, 20, 54);
            int y = 70;
            for (Panel panel : panels) {
                drawPanel(g, panel, y);
                y += height(panel);
            }
        } finally {
            g.dispose();
        }
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            ImageIO.write(image, "png", file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** A panel's height: its title and a row per bar. */
    private static int height(Panel panel) {
        return 56 + ROW_HEIGHT * Math.max(1, panel.bars().size());
    }

    private static void drawPanel(Graphics2D g, Panel panel, int top) {
        int labelWidth = 380;
        int barLeft = 20 + labelWidth;
        int barMax = 560;
        g.setColor(TEXT);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(panel.title(), 20, top + 26);
        double max = panel.bars().stream().mapToDouble(Bar::value).filter(v -> !Double.isNaN(v)).max().orElse(1);
        int rowHeight = ROW_HEIGHT;
        int y = top + 44;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        for (Bar bar : panel.bars()) {
            g.setColor(TEXT);
            g.drawString(bar.label(), 20, y + rowHeight / 2 + 4);
            int length = max > 0 ? (int) Math.round(bar.value() / max * barMax) : 0;
            g.setColor(bar.ours() ? OURS : BASELINE);
            g.fillRect(barLeft, y + 4, Math.max(1, length), rowHeight - 10);
            g.setColor(TEXT);
            g.drawString(bar.text(), barLeft + Math.max(1, length) + 8, y + rowHeight / 2 + 4);
            y += rowHeight;
        }
        g.setColor(new Color(0xE2E8F0));
        g.setStroke(new BasicStroke(1));
        g.drawLine(20, top + height(panel) - 4, WIDTH - 20, top + height(panel) - 4);
    }

    private static boolean ours(RunResult r) {
        return r.limiter().startsWith("this module");
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
