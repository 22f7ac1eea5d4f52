package dev.quota.core.config;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.reader.ReaderException;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Turns YAML text into plain maps ({@code LinkedHashMap<String, Object>}), lists and scalars
 * (String, Integer/Long/BigInteger, Double, Boolean, null), and nothing else.
 *
 * <p>SnakeYAML composes the node graph under hard limits (50 aliases to collections, 50 levels of
 * nesting, 1,000,000 code points; global tags refused); values are then built here rather than by
 * a constructor so that duplicate keys are reported with their path, aliases are never expanded
 * twice, and any tag other than the standard scalar, map and list tags is an error.
 */
final class YamlTree {

    static final int MAX_CODE_POINTS = 1_000_000;
    private static final int MAX_DEPTH = 50;
    private static final int MAX_ALIASES = 50;
    private static final Set<Tag> CONSTRUCTED = Set.of(Tag.INT, Tag.FLOAT, Tag.BOOL);

    private final ConfigProblems problems;
    private final PlainConstructor scalars;
    private final Yaml yaml;
    /** Nodes already turned into values: an alias yields the same object, not a copy. */
    private final IdentityHashMap<Node, @Nullable Object> built = new IdentityHashMap<>();
    /** Collections being built: meeting one again means an alias points into itself. */
    private final Set<Node> building = Collections.newSetFromMap(new IdentityHashMap<>());

    private YamlTree(ConfigProblems problems) {
        this.problems = problems;
        var options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setNestingDepthLimit(MAX_DEPTH);
        options.setCodePointLimit(MAX_CODE_POINTS);
        options.setAllowRecursiveKeys(false);
        options.setMergeOnCompose(false);
        this.scalars = new PlainConstructor(options);
        var dumperOptions = new DumperOptions();
        this.yaml = new Yaml(scalars, new Representer(dumperOptions), dumperOptions, options);
    }

    /** The document's root value, or null with errors recorded (an empty document is an error). */
    static @Nullable Object read(String text, ConfigProblems problems) {
        return new YamlTree(problems).read(text);
    }

    private @Nullable Object read(String text) {
        Node root;
        try {
            root = yaml.compose(new StringReader(text));
        } catch (YAMLException e) {
            problems.error("", describe(e, text));
            return null;
        }
        if (root == null || (root instanceof ScalarNode && Tag.NULL.equals(root.getTag()))) {
            problems.error("", "config is empty");
            return null;
        }
        Object value = build(root, "");
        return problems.hasErrors() ? null : value;
    }

    private @Nullable Object build(Node node, String path) {
        if (built.containsKey(node)) {
            return built.get(node);
        }
        if (!building.add(node)) {
            problems.error(path, "an alias may not refer to a map or list that contains it");
            return null;
        }
        Object value;
        if (node instanceof MappingNode mapping) {
            value = buildMap(mapping, path);
        } else if (node instanceof SequenceNode sequence) {
            value = buildList(sequence, path);
        } else {
            value = buildScalar((ScalarNode) node, path);
        }
        building.remove(node);
        built.put(node, value);
        return value;
    }

    private @Nullable Object buildMap(MappingNode node, String path) {
        if (!Tag.MAP.equals(node.getTag())) {
            return refuseTag(node, path);
        }
        Map<String, Object> map = new LinkedHashMap<>();
        Map<String, Mark> firstSeen = new HashMap<>();
        for (NodeTuple tuple : node.getValue()) {
            if (!(tuple.getKeyNode() instanceof ScalarNode keyNode)) {
                problems.error(path, "keys must be plain text, not maps or lists (line " + line(tuple.getKeyNode()) + ")");
                continue;
            }
            String key = keyNode.getValue();
            Mark first = firstSeen.putIfAbsent(key, keyNode.getStartMark());
            if (first != null) {
                problems.error(path, "duplicate key " + ConfigProblems.quote(key) + " (first at line "
                        + (first.getLine() + 1) + ", again at line " + line(keyNode) + ")");
                continue;
            }
            map.put(key, build(tuple.getValueNode(), ConfigProblems.key(path, key)));
        }
        return map;
    }

    private @Nullable Object buildList(SequenceNode node, String path) {
        if (!Tag.SEQ.equals(node.getTag())) {
            return refuseTag(node, path);
        }
        List<Object> list = new ArrayList<>(node.getValue().size());
        List<Node> items = node.getValue();
        for (int i = 0; i < items.size(); i++) {
            list.add(build(items.get(i), ConfigProblems.index(path, i)));
        }
        return list;
    }

    private @Nullable Object buildScalar(ScalarNode node, String path) {
        Tag tag = node.getTag();
        if (Tag.NULL.equals(tag)) {
            return null;
        }
        if (Tag.STR.equals(tag) || Tag.TIMESTAMP.equals(tag)) {
            // A date-like value is kept as the text it was written as; no field here is a date.
            return node.getValue();
        }
        if (!CONSTRUCTED.contains(tag)) {
            return refuseTag(node, path);
        }
        try {
            return scalars.scalar(node);
        } catch (RuntimeException e) {
            problems.error(path, "cannot read " + ConfigProblems.quote(node.getValue()) + " as " + tag.getClassName());
            return null;
        }
    }

    private @Nullable Object refuseTag(Node node, String path) {
        problems.error(path, "tag " + ConfigProblems.quote(shortTag(node.getTag().getValue())) + " is not allowed (line "
                + line(node) + "); only plain maps, lists and scalars");
        return null;
    }

    private static int line(Node node) {
        return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
    }

    private static String shortTag(String tag) {
        return tag.startsWith(Tag.PREFIX) ? "!!" + tag.substring(Tag.PREFIX.length()) : tag;
    }

    /** A SnakeYAML failure as one readable line with its position in {@code text}. */
    static String describe(YAMLException e, String text) {
        if (e instanceof ReaderException reader) {
            return "invalid YAML at line " + lineOfCodePoint(text, reader.getPosition()) + ": character "
                    + String.format("U+%04X", reader.getCodePoint()) + " is not allowed";
        }
        String problem = String.valueOf(e.getMessage()).lines().findFirst().orElse("");
        if (e instanceof MarkedYAMLException marked && marked.getProblem() != null) {
            problem = marked.getContext() == null ? marked.getProblem() : marked.getContext() + ": " + marked.getProblem();
        }
        if (problem.contains("Global tag is not allowed: ")) {
            String tag = problem.substring(problem.indexOf("Global tag is not allowed: ") + 27);
            problem = "tag " + ConfigProblems.quote(shortTag(tag)) + " is not allowed; only plain maps, lists and scalars";
        } else if (problem.startsWith("Nesting Depth exceeded")) {
            problem = "the document is nested more than " + MAX_DEPTH + " levels deep";
        } else if (problem.startsWith("Number of aliases for non-scalar nodes exceeds")) {
            problem = "more than " + MAX_ALIASES + " aliases to maps or lists (refused to prevent alias bombs)";
        } else if (problem.contains("exceeds the limit") && problem.contains("code points")) {
            problem = "the document is longer than " + MAX_CODE_POINTS + " characters (1 MB)";
        } else if (problem.endsWith("but found another document")) {
            problem = "more than one YAML document (---) in the file; the config is a single document";
        }
        Mark mark = e instanceof MarkedYAMLException marked ? marked.getProblemMark() : null;
        return mark == null
                ? "invalid YAML: " + problem
                : "invalid YAML at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ": " + problem;
    }

    private static int lineOfCodePoint(String text, int codePointIndex) {
        int end = text.offsetByCodePoints(0, Math.min(Math.max(codePointIndex, 0), text.codePointCount(0, text.length())));
        return (int) text.substring(0, end).chars().filter(c -> c == '\n').count() + 1;
    }

    /** Builds the standard scalars (int, float, bool) exactly as SnakeYAML's safe constructor does. */
    private static final class PlainConstructor extends SafeConstructor {
        PlainConstructor(LoaderOptions options) {
            super(options);
        }

        Object scalar(ScalarNode node) {
            return constructObject(node);
        }
    }
}
