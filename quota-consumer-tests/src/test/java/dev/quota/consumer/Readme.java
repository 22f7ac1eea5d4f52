package dev.quota.consumer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The snippets the docs mark as the way to use the library, in README.md (a service of your own)
 * and docs/runtimes.md (each runtime's wiring, {@code quota-cdi}): each is the fenced code block
 * between {@code <!-- snippet:NAME -->} and {@code <!-- /snippet -->}, indented or not (inside a
 * list item).
 */
final class Readme {

    private static final Pattern SNIPPET = Pattern.compile(
            "<!-- snippet:([a-z-]+) -->[ \\t]*\\n[ \\t]*```[a-z]*\\n(.*?)\\n[ \\t]*```[ \\t]*\\n[ \\t]*<!-- /snippet -->",
            Pattern.DOTALL);

    /** The files that mark snippets, relative to the checkout. */
    static final List<String> FILES = List.of("README.md", "docs/runtimes.md");

    private Readme() {
    }

    /** The text of each file of {@link #FILES}, one after the other. */
    static String text() {
        StringBuilder text = new StringBuilder();
        for (String file : FILES) {
            try {
                text.append(Files.readString(Checkout.root().resolve(file), StandardCharsets.UTF_8)).append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return text.toString();
    }

    /** Every marked snippet by name, as lines, in the order of the README, then docs/runtimes.md. */
    static Map<String, List<String>> snippets() {
        Map<String, List<String>> snippets = new LinkedHashMap<>();
        Matcher matcher = SNIPPET.matcher(text());
        while (matcher.find()) {
            if (snippets.put(matcher.group(1), matcher.group(2).lines().toList()) != null) {
                throw new IllegalStateException(FILES + " mark snippet " + matcher.group(1) + " twice");
            }
        }
        return snippets;
    }

    /**
     * The lines of {@code snippet} that {@code file} lacks: each non-blank snippet line must appear,
     * trimmed, as a line of the file, in the snippet's order. Empty when the file contains the
     * snippet verbatim (indentation aside, so that it may sit inside a class or a method).
     */
    static List<String> missingLines(List<String> snippet, Path file) {
        List<String> fileLines;
        try {
            fileLines = Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(String::trim).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> missing = new ArrayList<>();
        int at = 0;
        for (String line : snippet) {
            String wanted = line.trim();
            if (wanted.isEmpty()) {
                continue;
            }
            int found = fileLines.subList(at, fileLines.size()).indexOf(wanted);
            if (found < 0) {
                missing.add(wanted);
            } else {
                at += found + 1;
            }
        }
        return missing;
    }
}
