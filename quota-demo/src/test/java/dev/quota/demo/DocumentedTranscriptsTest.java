package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every curl transcript of the README and docs/ ({@link Transcripts}) is what the demo answers: its
 * commands are run against the demo with the bundled plans on a frozen clock (10:00 in Berlin, so a
 * day's limit resets in 50,400 s), each block on a fresh day with every bucket full, and what they
 * print must equal the block, status lines, headers and bodies, or the test fails with a diff.
 *
 * The demo runs with an admin token, {@code $QUOTA_ADMIN_TOKEN} in the transcripts.
 *
 * <p>{@code -DupdateTranscripts=true} writes what the demo printed into the blocks instead: review
 * the diff before committing it.
 */
class DocumentedTranscriptsTest {

    /** The admin token the demo runs with: {@code $QUOTA_ADMIN_TOKEN} in the transcripts. */
    private static final String ADMIN_TOKEN = "transcripts-admin-token-0123456789abcdef";

    private static RunningDemo demo;

    @BeforeAll
    static void start() {
        demo = RunningDemo.start(Configs.bundled(), null, ADMIN_TOKEN, Duration.ofSeconds(5));
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
    }

    @Test
    void everyTranscript_isWhatTheDemoAnswers() {
        List<Transcripts.Block> blocks = Transcripts.blocks();
        assertThat(blocks).as("transcript blocks in README.md and docs/").hasSizeGreaterThanOrEqualTo(5);
        boolean update = Boolean.getBoolean("updateTranscripts");
        Map<Path, List<String>> rewritten = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        // from the last block up, so that rewriting one leaves the line numbers of those above it
        for (int b = blocks.size() - 1; b >= 0; b--) {
            Transcripts.Block block = blocks.get(b);
            demo.nextDay();
            List<String> actual = Transcripts.run(block, demo.api.getPort(), demo.management.getPort(),
                    Map.of("QUOTA_ADMIN_TOKEN", ADMIN_TOKEN));
            List<String> written = block.lines().stream().map(Transcripts::stripTrailing).toList();
            if (actual.equals(written)) {
                continue;
            }
            if (update) {
                List<String> lines = rewritten.computeIfAbsent(block.file(), f -> new ArrayList<>(Transcripts.lines(f)));
                lines.subList(block.start(), block.end()).clear();
                lines.addAll(block.start(), actual);
            } else {
                failures.add(block.where() + " (- written, + the demo's answer):\n" + diff(written, actual));
            }
        }
        rewritten.forEach(DocumentedTranscriptsTest::write);
        assertThat(failures).as("transcripts that are not what the demo answers"
                + " (-DupdateTranscripts=true rewrites them)").isEmpty();
    }

    private static void write(Path file, List<String> lines) {
        try {
            Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A line diff of two short texts, by their longest common subsequence. */
    static String diff(List<String> a, List<String> b) {
        int[][] common = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                common[i][j] = a.get(i).equals(b.get(j)) ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                out.append("  ").append(a.get(i++)).append('\n');
                j++;
            } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
                out.append("- ").append(a.get(i++)).append('\n');
            } else {
                out.append("+ ").append(b.get(j++)).append('\n');
            }
        }
        return out.toString();
    }
}
