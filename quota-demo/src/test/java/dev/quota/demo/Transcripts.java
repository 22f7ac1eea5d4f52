package dev.quota.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The curl transcripts of the repository's markdown (README.md and docs/*.md): each fenced block
 * right after a {@code <!-- transcript -->} line. A block holds commands, each a line starting
 * {@code $ } (continued over lines ending in a backslash), and below each what it printed.
 *
 * <p>The commands are run here, against a demo, by a small imitation of curl that understands what
 * the transcripts use: {@code -i} (the status line and headers as the server wrote them, in its
 * order, then the body), {@code -s}, {@code -H}, {@code -d} (a POST), {@code -X},
 * {@code -o /dev/null}, {@code -w '%{http_code} '} and a URL whose {@code [1-21]} range curl
 * requests one after the other; a trailing {@code ; echo} prints a newline; {@code $QUOTA_ADMIN_TOKEN}
 * in double quotes is the demo's admin token. Only {@code Date} is
 * left out of the headers shown: nothing else a response carries changes between runs of a demo on
 * a frozen clock. A body that ends without a newline is shown with one, as the next prompt would
 * otherwise run into it.
 */
final class Transcripts {

    static final String MARK = "<!-- transcript -->";
    /** Headers whose value changes from run to run. */
    private static final Set<String> VOLATILE = Set.of("date");
    private static final Pattern RANGE = Pattern.compile("\\[(\\d+)-(\\d+)]");

    private Transcripts() {
    }

    /**
     * One transcript block.
     *
     * @param file  the markdown file
     * @param start the index of the block's first line (after the opening fence) in the file's lines
     * @param end   the index of the closing fence
     * @param lines the block's lines
     */
    record Block(Path file, int start, int end, List<String> lines) {
        String where() {
            return file.getFileName() + ":" + (start + 1);
        }

        /** The commands of the block, each with its continuation lines joined as written. */
        List<String> commands() {
            List<String> commands = new ArrayList<>();
            StringBuilder command = null;
            for (String line : lines) {
                if (command != null) {
                    command.append('\n').append(line);
                } else if (line.startsWith("$ ")) {
                    command = new StringBuilder(line);
                } else {
                    continue;
                }
                if (!line.endsWith("\\")) {
                    commands.add(command.toString());
                    command = null;
                }
            }
            return commands;
        }
    }

    /** The repository root: the parent of the module the tests run in, as Maven runs them. */
    static Path root() {
        Path root = Path.of("..").toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("README.md")) || !Files.isDirectory(root.resolve("docs"))) {
            throw new IllegalStateException("no README.md and docs/ in " + root + ": run the tests through Maven");
        }
        return root;
    }

    /** Every transcript block of README.md, then of docs/*.md by name. */
    static List<Block> blocks() {
        Path root = root();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Block> blocks = new ArrayList<>();
        for (Path file : files) {
            List<String> lines = lines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).trim().equals(MARK)) {
                    continue;
                }
                if (i + 1 >= lines.size() || !lines.get(i + 1).startsWith("```")) {
                    throw new IllegalStateException(file + ":" + (i + 1) + ": " + MARK + " without a fenced block after it");
                }
                int end = i + 2;
                while (end < lines.size() && !lines.get(end).startsWith("```")) {
                    end++;
                }
                blocks.add(new Block(file, i + 2, end, lines.subList(i + 2, end)));
                i = end;
            }
        }
        return blocks;
    }

    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The block as the demo answers it now: each command, then what it printed. {@code api} and
     * {@code management} are the demo's ports, which stand in for the transcripts' 8080 and 9080.
     */
    static List<String> run(Block block, int api, int management, Map<String, String> env) {
        List<String> out = new ArrayList<>();
        for (String command : block.commands()) {
            out.addAll(command.lines().toList());
            String printed = curl(command.substring(2).replace("\\\n", " "), api, management, env);
            if (!printed.isEmpty() && !printed.endsWith("\n")) {
                printed += "\n";
            }
            printed.lines().map(Transcripts::stripTrailing).forEach(out::add);
        }
        return out;
    }

    static String stripTrailing(String line) {
        return line.stripTrailing();
    }

    /** What {@code curl ...} prints. */
    private static String curl(String command, int api, int management, Map<String, String> env) {
        boolean echo = command.endsWith("; echo");
        List<String> words = words(echo ? command.substring(0, command.length() - "; echo".length()) : command, env);
        if (words.isEmpty() || !words.get(0).equals("curl")) {
            throw new IllegalArgumentException("only curl commands are run: " + command);
        }
        boolean include = false;
        boolean discard = false;
        String writeOut = null;
        String method = null;
        byte[] data = null;
        String url = null;
        List<String> headers = new ArrayList<>();
        for (int i = 1; i < words.size(); i++) {
            String word = words.get(i);
            switch (word) {
                case "-i" -> include = true;
                case "-s", "-S", "-sS" -> { }
                case "-si", "-is" -> include = true;
                case "-H" -> headers.add(words.get(++i));
                case "-d" -> data = words.get(++i).getBytes(StandardCharsets.UTF_8);
                case "-X" -> method = words.get(++i);
                case "-w" -> writeOut = words.get(++i).replace("\\n", "\n");
                case "-o" -> {
                    if (!words.get(++i).equals("/dev/null")) {
                        throw new IllegalArgumentException("-o other than /dev/null: " + command);
                    }
                    discard = true;
                }
                default -> {
                    if (word.startsWith("-") || url != null) {
                        throw new IllegalArgumentException("not understood: " + word + " in " + command);
                    }
                    url = word;
                }
            }
        }
        if (url == null) {
            throw new IllegalArgumentException("no URL in " + command);
        }
        if (method == null) {
            method = data == null ? "GET" : "POST";
        }
        if (data != null && headers.stream().noneMatch(h -> h.toLowerCase(Locale.ROOT).startsWith("content-type:"))) {
            headers.add("Content-Type: application/x-www-form-urlencoded");
        }
        StringBuilder printed = new StringBuilder();
        for (String each : expand(url)) {
            URI uri = URI.create(each.replace("127.0.0.1:8080", "127.0.0.1:" + api)
                    .replace("127.0.0.1:9080", "127.0.0.1:" + management));
            Answer answer = send(uri, method, headers, data);
            if (include && !discard) {
                printed.append(answer.head);
            }
            if (!discard) {
                printed.append(answer.body);
            }
            if (writeOut != null) {
                printed.append(writeOut.replace("%{http_code}", Integer.toString(answer.status)));
            }
        }
        if (echo) {
            printed.append('\n');
        }
        return printed.toString();
    }

    /** {@code http://h/x?n=[1-3]}: the three URLs, in order. */
    private static List<String> expand(String url) {
        Matcher range = RANGE.matcher(url);
        if (!range.find()) {
            return List.of(url);
        }
        List<String> urls = new ArrayList<>();
        for (int n = Integer.parseInt(range.group(1)); n <= Integer.parseInt(range.group(2)); n++) {
            urls.add(url.substring(0, range.start()) + n + url.substring(range.end()));
        }
        return urls;
    }

    /**
     * A command line split into words as a POSIX shell does for quotes, with {@code $NAME} of
     * {@code env} expanded inside double quotes.
     */
    static List<String> words(String command, Map<String, String> env) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (c == '\'') {
                int close = command.indexOf('\'', i + 1);
                word = (word == null ? new StringBuilder() : word).append(command, i + 1, close);
                i = close;
            } else if (c == '"') {
                int close = command.indexOf('"', i + 1);
                String quoted = command.substring(i + 1, close);
                for (Map.Entry<String, String> variable : env.entrySet()) {
                    quoted = quoted.replace("$" + variable.getKey(), variable.getValue());
                }
                if (quoted.contains("$")) {
                    throw new IllegalArgumentException("a variable other than " + env.keySet() + " in " + command);
                }
                word = (word == null ? new StringBuilder() : word).append(quoted);
                i = close;
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                word = (word == null ? new StringBuilder() : word).append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }

    /** {@code head}: the status line and headers as curl -i prints them, with the blank line after. */
    private record Answer(int status, String head, String body) {
    }

    /** One HTTP/1.1 request as curl sends it, on a connection of its own. */
    private static Answer send(URI uri, String method, List<String> headers, byte[] data) {
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(30_000);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), uri.getPort()), 5_000);
            StringBuilder head = new StringBuilder(method).append(' ').append(uri.getRawPath())
                    .append(uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(uri.getHost()).append(':').append(uri.getPort()).append("\r\n")
                    .append("User-Agent: curl/8.5.0\r\nAccept: */*\r\n");
            for (String header : headers) {
                head.append(header).append("\r\n");
            }
            if (data != null) {
                head.append("Content-Length: ").append(data.length).append("\r\n");
            }
            OutputStream out = socket.getOutputStream();
            out.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            if (data != null) {
                out.write(data);
            }
            out.flush();
            return read(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + uri + " failed", e);
        }
    }

    private static Answer read(InputStream in) throws IOException {
        List<String> lines = new ArrayList<>();
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            lines.add(line);
        }
        int status = Integer.parseInt(lines.get(0).split(" ")[1]);
        StringBuilder head = new StringBuilder(lines.get(0)).append('\n');
        long length = -1;
        boolean chunked = false;
        for (String header : lines.subList(1, lines.size())) {
            String name = header.substring(0, header.indexOf(':')).toLowerCase(Locale.ROOT);
            String value = header.substring(header.indexOf(':') + 1).trim();
            if (name.equals("content-length")) {
                length = Long.parseLong(value);
            } else if (name.equals("transfer-encoding") && value.equalsIgnoreCase("chunked")) {
                chunked = true;
            }
            if (!VOLATILE.contains(name)) {
                head.append(header).append('\n');
            }
        }
        head.append('\n');
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (int size = Integer.parseInt(line(in).split(";")[0].trim(), 16); size > 0;
                 size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) {
                body.write(in.readNBytes(size));
                line(in);
            }
        } else if (length >= 0) {
            body.write(in.readNBytes((int) length));
        } else {
            in.transferTo(body);
        }
        return new Answer(status, head.toString(), body.toString(StandardCharsets.UTF_8));
    }

    /** One line of a response head, without its CRLF. */
    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("the connection closed in a response head: " + line);
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
