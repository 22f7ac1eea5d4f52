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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * The results as one PNG, drawn with Java2D (headless): a panel per scenario with a horizontal
 * bar per limiter. This module's bars are blue, the baselines grey.
 */
final class Chart {

    private static final int WIDTH = 1400;
    private static final int PANEL_HEIGHT = 300;
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

    static List<Panel> panels(List<RunResult> runs, List<HttpScenario.Row> http) {
        List<Panel> panels = new ArrayList<>();
        for (String prefix : List.of("1.", "2.")) {
            List<RunResult> rows = runs.stream().filter(r -> r.scenario().startsWith(prefix)).toList();
            if (rows.isEmpty()) {
                continue;
            }
            double lua = rows.stream().filter(r -> r.limiter().equals(Kind.LUA.label()))
                    .mapToDouble(RunResult::throughput).findFirst().orElse(Double.NaN);
            List<Bar> bars = new ArrayList<>();
            for (RunResult r : rows) {
                String text = f("%,.0f/s  %.2fx Lua  %.2f round trips  p99 %.1f ms", r.throughput(),
                        r.throughput() / lua, r.roundTripsPerDecision(), r.p99() / 1e6);
                bars.add(new Bar(r.limiter(), r.throughput(), text, ours(r)));
            }
            panels.add(new Panel(rows.get(0).scenario() + ": decisions per second", bars));
        }
        List<RunResult> flood = runs.stream().filter(r -> r.scenario().startsWith("3.")).toList();
        if (!flood.isEmpty()) {
            List<Bar> bars = new ArrayList<>();
            for (RunResult r : flood) {
                String text = f("%.2f per request;  %.3f per rejected request beyond what admitted ones need",
                        r.roundTripsPerDecision(), r.extraRoundTripsPerRejected());
                bars.add(new Bar(r.limiter(), r.roundTripsPerDecision(), text, ours(r)));
            }
            panels.add(new Panel(flood.get(0).scenario() + ": Redis round trips per request", bars));
        }
        if (!http.isEmpty()) {
            List<Bar> bars = new ArrayList<>();
            for (HttpScenario.Row row : http) {
                var r = row.result();
                String text = f("%,.0f req/s  p50 %.2f ms  p99 %.2f ms", r.throughput(), r.p50() / 1e6, r.p99() / 1e6);
                bars.add(new Bar(row.server() + ", " + row.load(), r.throughput(), text,
                        row.server().equals(HttpScenario.WITH)));
            }
            panels.add(new Panel("4. HTTP end to end: requests per second", bars));
        }
        return panels;
    }

    static void write(Path file, String subtitle, List<Panel> panels) {
        int height = 70 + panels.size() * PANEL_HEIGHT;
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
                y += PANEL_HEIGHT;
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

    private static void drawPanel(Graphics2D g, Panel panel, int top) {
        int labelWidth = 300;
        int barLeft = 20 + labelWidth;
        int barMax = 560;
        g.setColor(TEXT);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        g.drawString(panel.title(), 20, top + 26);
        double max = panel.bars().stream().mapToDouble(Bar::value).filter(v -> !Double.isNaN(v)).max().orElse(1);
        int rowHeight = Math.min(44, (PANEL_HEIGHT - 50) / Math.max(1, panel.bars().size()));
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
        g.drawLine(20, top + PANEL_HEIGHT - 4, WIDTH - 20, top + PANEL_HEIGHT - 4);
    }

    private static boolean ours(RunResult r) {
        return r.limiter().startsWith("this module");
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
