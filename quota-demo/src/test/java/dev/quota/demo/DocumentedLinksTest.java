package dev.quota.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the repository's markdown (README.md, CHANGELOG.md, docs/*.md) points at a
 * file that exists and, when it names an anchor, at a heading of that file, as GitHub makes
 * anchors of headings: lower case, punctuation dropped, spaces made hyphens, a repeated heading
 * numbered ({@code -1}). Links inside fenced code blocks are not links.
 */
class DocumentedLinksTest {

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} +(.+?) *#* *$");

    @Test
    void everyRelativeLink_pointsAtAFileAndHeadingThatExist() {
        Path root = Transcripts.root();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        for (Path file : files) {
            boolean fenced = false;
            List<String> lines = Transcripts.lines(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.trim().startsWith("```")) {
                    fenced = !fenced;
                    continue;
                }
                if (fenced) {
                    continue;
                }
                Matcher link = LINK.matcher(line);
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue; // https:, mailto:
                    }
                    int hash = target.indexOf('#');
                    String path = hash < 0 ? target : target.substring(0, hash);
                    Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                    String where = root.relativize(file) + ":" + (i + 1) + ": " + target;
                    if (!Files.exists(resolved)) {
                        broken.add(where + " (no such file)");
                    } else if (hash >= 0 && resolved.toString().endsWith(".md")
                            && !anchors.computeIfAbsent(resolved, DocumentedLinksTest::anchors)
                                    .contains(target.substring(hash + 1))) {
                        broken.add(where + " (no such heading)");
                    }
                }
            }
        }
        assertThat(broken).as("links to files or headings that do not exist").isEmpty();
    }

    /** The anchors GitHub gives the headings of {@code file}. */
    static Set<String> anchors(Path file) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : Transcripts.lines(file)) {
            if (line.trim().startsWith("```")) {
                fenced = !fenced;
            }
            Matcher heading = HEADING.matcher(line);
            if (fenced || !heading.matches()) {
                continue;
            }
            String anchor = slug(heading.group(1));
            int count = seen.merge(anchor, 1, Integer::sum);
            anchors.add(count == 1 ? anchor : anchor + "-" + (count - 1));
        }
        return anchors;
    }

    /** {@code The transfer's paced tail, 0.5 ms away} is {@code the-transfers-paced-tail-05-ms-away}. */
    static String slug(String heading) {
        StringBuilder slug = new StringBuilder();
        for (char c : heading.toLowerCase(Locale.ROOT).toCharArray()) {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.append(c);
            } else if (c == ' ') {
                slug.append('-');
            }
        }
        return slug.toString();
    }

    @Test
    void slug_dropsPunctuationAndKeepsHyphens() {
        assertThat(slug("The transfer's paced tail, 0.5 ms away")).isEqualTo("the-transfers-paced-tail-05-ms-away");
        assertThat(slug("JCache (data grids)")).isEqualTo("jcache-data-grids");
        assertThat(slug("`quota-cdi` settings")).isEqualTo("quota-cdi-settings");
    }
}
