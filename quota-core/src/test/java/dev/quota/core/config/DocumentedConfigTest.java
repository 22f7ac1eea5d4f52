package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.quota.core.QuotaConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every config example and every quoted loader error in README.md and docs/ is what the loader
 * does: each YAML block is marked ({@link MarkdownExamples}) and loaded here, a good example must
 * load without errors or unshown warnings, and a quoted error message must be the loader's, to the
 * character.
 */
class DocumentedConfigTest {

    private static final Set<String> MARKS = Set.of("config", "warnings", "bad-config", "errors");
    /** A line as the loader reports an error: {@code plans.free.limits[0].capacity: must be >= 1 but was 0}. */
    private static final Pattern ERROR_LINE = Pattern.compile(
            "(?m)^\\s*(identity|plans|rules|amounts|customers|apiKeys|allow)[.\\[]\\S*: \\S");
    private static final Pattern ERRORS_HEAD = Pattern.compile("invalid quota config (\\S+) \\(\\d+ errors?\\):");

    @TestFactory
    List<DynamicTest> everyMarkedBlock_isWhatTheLoaderDoes() {
        List<MarkdownExamples.Block> blocks = MarkdownExamples.blocks();
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            MarkdownExamples.Block block = blocks.get(i);
            MarkdownExamples.Block next = i + 1 < blocks.size() ? blocks.get(i + 1) : null;
            boolean shownNext = next != null && next.file().equals(block.file());
            if ("config".equals(block.mark())) {
                MarkdownExamples.Block warnings = shownNext && "warnings".equals(next.mark()) ? next : null;
                tests.add(DynamicTest.dynamicTest(block.where() + " loads", () -> loads(block, warnings)));
            } else if ("bad-config".equals(block.mark())) {
                MarkdownExamples.Block errors = shownNext && "errors".equals(next.mark()) ? next : null;
                tests.add(DynamicTest.dynamicTest(block.where() + " is refused as shown", () -> refused(block, errors)));
            }
        }
        return tests;
    }

    @Test
    void everyYamlBlockAndQuotedLoaderMessage_isMarked() {
        List<MarkdownExamples.Block> blocks = MarkdownExamples.blocks();
        List<String> unchecked = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            MarkdownExamples.Block block = blocks.get(i);
            String mark = block.mark();
            if (mark != null && !MARKS.contains(mark)) {
                unchecked.add(block.where() + ": unknown mark check:" + mark);
            } else if (block.language().equals("yaml") && !"config".equals(mark) && !"bad-config".equals(mark)) {
                unchecked.add(block.where() + ": a YAML block without check:config or check:bad-config");
            } else if (mark == null && (block.text().contains("invalid quota config")
                    || ERROR_LINE.matcher(block.text()).find())) {
                unchecked.add(block.where() + ": a quoted loader message without check:errors");
            } else if (("warnings".equals(mark) || "errors".equals(mark))
                    && (i == 0 || !(blocks.get(i - 1).mark() + "").equals(mark.equals("errors") ? "bad-config" : "config")
                    || !blocks.get(i - 1).file().equals(block.file()))) {
                unchecked.add(block.where() + ": check:" + mark + " does not follow the config it is about");
            }
        }
        assertThat(unchecked).isEmpty();
        assertThat(blocks).as("marked config examples").filteredOn(b -> "config".equals(b.mark())).hasSizeGreaterThan(3);
        assertThat(blocks).as("marked loader messages").filteredOn(b -> "errors".equals(b.mark())).hasSizeGreaterThan(1);
    }

    private static void loads(MarkdownExamples.Block block, MarkdownExamples.Block warnings) {
        QuotaConfig config;
        try {
            config = QuotaConfigLoader.parse(block.text(), block.where());
        } catch (InvalidConfigException e) {
            throw new AssertionError("the example at " + block.where() + " is refused by the loader:\n"
                    + e.getMessage(), e);
        }
        List<String> shown = warnings == null ? List.of() : warnings.text().lines().toList();
        assertThat(config.warnings()).as("warnings of the example at %s, as shown after it", block.where())
                .containsExactlyElementsOf(shown);
    }

    private static void refused(MarkdownExamples.Block block, MarkdownExamples.Block errors) {
        assertThat(errors).as("the refused example at %s is followed by the loader's message (check:errors)",
                block.where()).isNotNull();
        Matcher head = ERRORS_HEAD.matcher(errors.text().lines().findFirst().orElse(""));
        assertThat(head.matches()).as("%s starts like the loader's message: invalid quota config NAME (N errors):",
                errors.where()).isTrue();
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> QuotaConfigLoader.parse(block.text(), head.group(1)));
        assertThat(e).as("the example at %s is refused", block.where()).isNotNull();
        assertThat(errors.text()).as("the message quoted at %s", errors.where()).isEqualTo(e.getMessage());
    }
}
