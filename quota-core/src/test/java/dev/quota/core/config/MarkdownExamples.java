package dev.quota.core.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced code blocks of the repository's markdown (README.md and docs/*.md), each with the
 * {@code <!-- check:KIND -->} mark that precedes it, if any. A mark applies to the next fenced block;
 * other HTML comments (such as the README's {@code <!-- snippet:plans -->}) may stand between them.
 * The marks:
 * <ul>
 *   <li>{@code check:config}: a YAML config that loads without an error or a warning;
 *   <li>{@code check:warnings}: the warnings of the {@code check:config} block before it, one a line;
 *   <li>{@code check:bad-config}: a YAML config that the loader refuses;
 *   <li>{@code check:errors}: exactly what the loader says about the {@code check:bad-config} block
 *       before it, its exception message ({@code invalid quota config NAME (N errors):} and one
 *       indented line per error), loaded under the NAME the block shows.
 * </ul>
 */
final class MarkdownExamples {

    private static final Pattern MARK = Pattern.compile("<!-- check:([a-z-]+) -->");
    private static final Pattern FENCE = Pattern.compile("^( *)```([a-z]*)\\s*$");

    private MarkdownExamples() {
    }

    /**
     * One fenced block.
     *
     * @param file     the markdown file, relative to the repository root
     * @param line     the line of the opening fence, from 1
     * @param mark     the check kind, or null when unmarked
     * @param language the fence's info string ({@code yaml}), or empty
     * @param text     the block's lines without the fence's indentation, joined with newlines
     */
    record Block(String file, int line, String mark, String language, String text) {
        String where() {
            return file + ":" + line;
        }
    }

    /** The repository root: the parent of the module the tests run in, as Maven runs them. */
    static Path root() {
        Path root = Path.of("..").toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("README.md")) || !Files.isDirectory(root.resolve("docs"))) {
            throw new IllegalStateException("no README.md and docs/ in " + root + ": run the tests through Maven,"
                    + " from the module directory");
        }
        return root;
    }

    /** README.md, then every markdown file under docs/ by name. */
    static List<Path> files() {
        Path root = root();
        List<Path> files = new ArrayList<>();
        files.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** Every fenced block of every file, in order. */
    static List<Block> blocks() {
        List<Block> blocks = new ArrayList<>();
        for (Path file : files()) {
            blocks.addAll(blocks(file));
        }
        return blocks;
    }

    static List<Block> blocks(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String name = root().relativize(file).toString();
        List<Block> blocks = new ArrayList<>();
        String mark = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher fence = FENCE.matcher(line);
            if (!fence.matches()) {
                Matcher marked = MARK.matcher(line);
                if (marked.find()) {
                    mark = marked.group(1);
                } else if (!line.isBlank() && !line.trim().startsWith("<!--")) {
                    mark = null; // prose between a mark and a block: the mark was meant for nothing
                }
                continue;
            }
            String indent = fence.group(1);
            int start = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.size() && !lines.get(i).equals(indent + "```"); i++) {
                String content = lines.get(i);
                body.add(content.startsWith(indent) ? content.substring(indent.length()) : content.stripLeading());
            }
            if (i == lines.size()) {
                throw new IllegalStateException(name + ":" + (start + 1) + ": the fenced block is never closed");
            }
            blocks.add(new Block(name, start + 1, mark, fence.group(2), String.join("\n", body)));
            mark = null;
        }
        return blocks;
    }
}
