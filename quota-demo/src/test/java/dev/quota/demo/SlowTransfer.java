package dev.quota.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A transfer whose body comes slowly: its headers and first body byte now, the rest when the test says. */
final class SlowTransfer {

    /** The length the transfer declares: 100 bytes. */
    static final int LENGTH = 100;

    private SlowTransfer() {
    }

    /** Headers and the first byte of a {@value #LENGTH}-byte transfer body, from address {@code from}. */
    static Socket start(int port, String from, String... headers) throws IOException {
        return start(port, from, "{", headers);
    }

    /** The headers of a {@value #LENGTH}-byte transfer, from address {@code from}, and not one byte of its body. */
    static Socket headersOnly(int port, String from, String... headers) throws IOException {
        return start(port, from, "", headers);
    }

    private static Socket start(int port, String from, String bodyStart, String... headers) throws IOException {
        Socket socket = new Socket();
        socket.setSoTimeout(20_000); // a guard against hanging the build, not a measure
        socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        StringBuilder head = new StringBuilder("POST /api/v1/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: " + LENGTH + "\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        socket.getOutputStream().write((head + "\r\n" + bodyStart).getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return socket;
    }

    /**
     * The answer on {@code socket} up to the end of its problem body (the first {@code '}'}), without
     * waiting for the connection to close: a server answers a refused request before reading its body,
     * then waits for the body before it closes.
     */
    static String problemAnswer(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0; b = in.read()) {
            answer.write(b);
            if (b == '}') {
                break;
            }
        }
        return answer.toString(StandardCharsets.ISO_8859_1);
    }

    /**
     * Sends a whole body of spaces for a {@link #headersOnly} transfer, so that the server ends the
     * request now instead of at its idle timeout, and closes the socket.
     */
    static void abandon(Socket socket) {
        try (socket) {
            socket.getOutputStream().write(" ".repeat(LENGTH).getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            statusLine(socket);
        } catch (IOException e) {
            // answered and closed already
        }
    }

    /** The status line of the answer on {@code socket}. */
    static String statusLine(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            line.write(b);
        }
        return line.toString(StandardCharsets.ISO_8859_1).trim();
    }
}
