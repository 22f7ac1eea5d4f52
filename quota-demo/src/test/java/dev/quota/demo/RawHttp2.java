package dev.quota.demo;

import dev.quota.testkit.RawHttp;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.hpack.HpackDecoder;
import org.eclipse.jetty.http2.hpack.HpackException;
import org.jspecify.annotations.Nullable;

/**
 * HTTP/2 over a plain socket, started with the connection preface (prior knowledge), for what
 * Java's {@code HttpClient} never sends: an {@code :authority} of the test's choosing or none, and
 * a connection from a local address of the test's choosing. One GET at a time; every read is
 * bounded by {@link Http#TIMEOUT}.
 */
final class RawHttp2 implements AutoCloseable {

    /** An answer: {@code :status}, the other headers (lower-case names, last value wins) and the body. */
    record Response(int status, Map<String, String> headers, String body) {
    }

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int WINDOW_UPDATE = 0x8;
    /** SETTINGS_INITIAL_WINDOW_SIZE (RFC 9113, section 6.5.2). */
    private static final int INITIAL_WINDOW_SIZE = 0x4;
    private static final int CONTINUATION = 0x9;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int PADDED = 0x8;
    private static final int PRIORITY = 0x20;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    /** The server's header compression state: one decoder for the whole connection. */
    private final HpackDecoder decoder = new HpackDecoder(1 << 20, System::nanoTime);
    private int nextStream = 1;

    private RawHttp2(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /** Connects to {@code server}'s host and port from {@code localAddress} (port chosen by the system). */
    static RawHttp2 connect(URI server, InetAddress localAddress) throws IOException {
        return connect(server, localAddress, -1);
    }

    /**
     * Connects as {@link #connect(URI, InetAddress)}, announcing {@code initialWindow} as the
     * flow-control window of every stream (0: the server may send no DATA until a WINDOW_UPDATE);
     * -1 announces nothing.
     */
    static RawHttp2 connect(URI server, InetAddress localAddress, int initialWindow) throws IOException {
        Socket socket = new Socket();
        try {
            socket.bind(new InetSocketAddress(localAddress, 0));
            socket.connect(new InetSocketAddress(server.getHost(), server.getPort()), (int) Http.TIMEOUT.toMillis());
            socket.setSoTimeout((int) Http.TIMEOUT.toMillis());
            RawHttp2 connection = new RawHttp2(socket);
            connection.out.write(PREFACE);
            connection.frame(SETTINGS, 0, 0, initialWindow < 0 ? new byte[0]
                    : new byte[] {0, INITIAL_WINDOW_SIZE, (byte) (initialWindow >>> 24), (byte) (initialWindow >>> 16),
                        (byte) (initialWindow >>> 8), (byte) initialWindow});
            return connection;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * GET {@code path} with {@code :authority} (none when null) and header pairs
     * {@code name, value, ...}; waits for the whole answer.
     *
     * @throws IOException if the connection fails, or the server resets the stream or the connection
     */
    Response get(@Nullable String authority, String path, String... headers) throws IOException {
        int stream = nextStream;
        nextStream += 2;
        HeaderBlock block = new HeaderBlock();
        block.add(":method", "GET");
        block.add(":scheme", "http");
        block.add(":path", path);
        if (authority != null) {
            block.add(":authority", authority);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            block.add(headers[i].toLowerCase(Locale.ROOT), headers[i + 1]);
        }
        frame(HEADERS, END_HEADERS | END_STREAM, stream, block.bytes());
        return read(stream);
    }

    /**
     * GET {@code path} with one extra header {@code name: value} sent as a literal <em>with</em>
     * incremental indexing (it would enter the server's table), split into CONTINUATION frames when
     * longer than a frame; waits for the answer.
     *
     * @throws IOException if the connection fails, or the server resets the stream or the connection
     */
    Response getWithIndexedHeader(String authority, String path, String name, String value, String... headers)
            throws IOException {
        int stream = nextStream;
        nextStream += 2;
        HeaderBlock block = new HeaderBlock();
        block.add(":method", "GET");
        block.add(":scheme", "http");
        block.add(":path", path);
        block.add(":authority", authority);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            block.add(headers[i].toLowerCase(Locale.ROOT), headers[i + 1]);
        }
        block.addIndexed(name, value);
        byte[] bytes = block.bytes();
        int frameSize = 16_384;
        for (int at = 0; at < bytes.length; at += frameSize) {
            byte[] part = Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + frameSize));
            boolean first = at == 0;
            boolean last = at + frameSize >= bytes.length;
            frame(first ? HEADERS : CONTINUATION, (first ? END_STREAM : 0) | (last ? END_HEADERS : 0), stream, part);
        }
        return read(stream);
    }

    /**
     * Rapid reset: opens {@code streams} requests for {@code path}, each HEADERS at once followed by
     * RST_STREAM (CANCEL), without reading; stops early when the server closes the connection.
     *
     * @return how many streams were opened and reset before the connection broke
     */
    int rapidReset(String authority, String path, int streams) {
        HeaderBlock block = new HeaderBlock();
        block.add(":method", "GET");
        block.add(":scheme", "http");
        block.add(":path", path);
        block.add(":authority", authority);
        byte[] headers = block.bytes();
        int sent = 0;
        try {
            for (; sent < streams; sent++) {
                int stream = nextStream;
                nextStream += 2;
                frame(HEADERS, END_HEADERS | END_STREAM, stream, headers);
                frame(RST_STREAM, 0, stream, new byte[] {0, 0, 0, 8});
            }
        } catch (IOException closedByTheServer) {
            // the server ended the connection: the flood stops here
        }
        return sent;
    }

    /**
     * Opens a GET of {@code path} with header pairs {@code name, value, ...} and does not wait for
     * the answer.
     *
     * @return the stream's id
     * @throws IOException if the connection fails
     */
    int open(String authority, String path, String... headers) throws IOException {
        int stream = nextStream;
        nextStream += 2;
        HeaderBlock block = new HeaderBlock();
        block.add(":method", "GET");
        block.add(":scheme", "http");
        block.add(":path", path);
        block.add(":authority", authority);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            block.add(headers[i].toLowerCase(Locale.ROOT), headers[i + 1]);
        }
        frame(HEADERS, END_HEADERS | END_STREAM, stream, block.bytes());
        return stream;
    }

    /** Opens {@code stream}'s flow-control window by {@code bytes}. */
    void windowUpdate(int stream, int bytes) throws IOException {
        frame(WINDOW_UPDATE, 0, stream, new byte[] {(byte) (bytes >>> 24), (byte) (bytes >>> 16), (byte) (bytes >>> 8),
            (byte) bytes});
    }

    /**
     * Reads every frame from now on in a thread of its own, answering SETTINGS and PING, and
     * records the streams the server reset and whether it closed the connection (GOAWAY or end of
     * stream). Use no other read afterwards.
     */
    Watch watch() {
        Watch watch = new Watch();
        Thread reader = new Thread(() -> {
            try {
                while (true) {
                    int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
                    int type = in.readUnsignedByte();
                    int flags = in.readUnsignedByte();
                    int id = in.readInt() & 0x7fff_ffff;
                    byte[] payload = in.readNBytes(length);
                    if (type == SETTINGS && (flags & ACK) == 0) {
                        frame(SETTINGS, ACK, 0, new byte[0]);
                    } else if (type == PING && (flags & ACK) == 0) {
                        frame(PING, ACK, 0, payload);
                    } else if (type == RST_STREAM) {
                        watch.reset.add(id);
                    } else if (type == DATA) {
                        watch.dataBytes.addAndGet(length);
                    } else if (type == GOAWAY) {
                        watch.closedBy = "GOAWAY, error code " + (payload.length >= 8 ? readInt(payload, 4) : -1) + ": "
                                + (payload.length > 8 ? new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8) : "");
                        watch.closed = true;
                    }
                }
            } catch (IOException e) {
                if (watch.closedBy == null) {
                    watch.closedBy = e.toString();
                }
                watch.closed = true;
            }
        }, "raw-http2-watch");
        reader.setDaemon(true);
        reader.start();
        return watch;
    }

    /** What {@link #watch} saw so far. */
    static final class Watch {
        final Set<Integer> reset = ConcurrentHashMap.newKeySet();
        final AtomicLong dataBytes = new AtomicLong();
        volatile boolean closed;
        /** What ended the connection, once {@link #closed}: the GOAWAY's error and reason, or the read's failure. */
        volatile @Nullable String closedBy;

        /** Whether {@code stream} was reset by the server, or its connection closed. */
        boolean ended(int stream) {
            return closed || reset.contains(stream);
        }
    }

    /** The error code of the GOAWAY the server sends next, skipping other frames; -1 when it closes without one. */
    int awaitGoAway() {
        try {
            while (true) {
                int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                in.readUnsignedByte();
                in.readInt();
                byte[] payload = in.readNBytes(length);
                if (type == GOAWAY && payload.length >= 8) {
                    return readInt(payload, 4);
                }
            }
        } catch (IOException e) {
            return -1;
        }
    }

    private Response read(int stream) throws IOException {
        Map<String, String> headers = new LinkedHashMap<>();
        StringBuilder body = new StringBuilder();
        ByteArrayOutputStream headerBlock = new ByteArrayOutputStream();
        while (true) {
            int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int id = in.readInt() & 0x7fff_ffff;
            byte[] payload = in.readNBytes(length);
            if (payload.length < length) {
                throw new IOException("the connection ended inside a frame");
            }
            switch (type) {
                case SETTINGS -> {
                    if ((flags & ACK) == 0) {
                        frame(SETTINGS, ACK, 0, new byte[0]);
                    }
                }
                case PING -> {
                    if ((flags & ACK) == 0) {
                        frame(PING, ACK, 0, payload);
                    }
                }
                case GOAWAY -> throw new IOException("GOAWAY, error code " + readInt(payload, 4) + ": "
                        + new String(payload, 8, payload.length - 8, StandardCharsets.UTF_8));
                case RST_STREAM -> {
                    if (id == stream) {
                        throw new IOException("RST_STREAM, error code " + readInt(payload, 0));
                    }
                }
                case HEADERS, CONTINUATION -> {
                    if (id == stream) {
                        headerBlock.write(type == HEADERS ? headerFragment(payload, flags) : payload);
                        if ((flags & END_HEADERS) != 0) {
                            decode(headerBlock.toByteArray(), headers);
                            headerBlock.reset();
                        }
                    }
                }
                case DATA -> {
                    if (id == stream) {
                        body.append(new String(unpadded(payload, flags), StandardCharsets.UTF_8));
                    }
                }
                default -> {
                    // WINDOW_UPDATE, PRIORITY: nothing to do for one small answer at a time
                }
            }
            if (id == stream && (type == HEADERS || type == DATA) && (flags & END_STREAM) != 0) {
                String status = headers.remove(":status");
                if (status == null) {
                    throw new IOException("no :status in " + headers);
                }
                return new Response(Integer.parseInt(status), headers, body.toString());
            }
        }
    }

    private void decode(byte[] block, Map<String, String> headers) throws IOException {
        MetaData metaData;
        try {
            metaData = decoder.decode(java.nio.ByteBuffer.wrap(block));
        } catch (HpackException.SessionException | HpackException.StreamException e) {
            throw new IOException("undecodable header block: " + e.getMessage(), e);
        }
        if (metaData instanceof MetaData.Response response) {
            headers.put(":status", Integer.toString(response.getStatus()));
        }
        for (HttpField field : metaData.getHttpFields()) {
            headers.put(field.getLowerCaseName(), field.getValue());
        }
    }

    /** A HEADERS payload without its padding and priority fields. */
    private static byte[] headerFragment(byte[] payload, int flags) {
        byte[] fragment = unpadded(payload, flags);
        return (flags & PRIORITY) != 0 ? Arrays.copyOfRange(fragment, 5, fragment.length) : fragment;
    }

    private static byte[] unpadded(byte[] payload, int flags) {
        if ((flags & PADDED) == 0) {
            return payload;
        }
        int padding = payload[0] & 0xff;
        return Arrays.copyOfRange(payload, 1, payload.length - padding);
    }

    private static int readInt(byte[] bytes, int at) {
        return ((bytes[at] & 0xff) << 24) | ((bytes[at + 1] & 0xff) << 16) | ((bytes[at + 2] & 0xff) << 8)
                | (bytes[at + 3] & 0xff);
    }

    /**
     * Writes one frame in one write, as HTTP/2 clients do: Jetty 12.0's server parser misreads a
     * connection's first SETTINGS frame whose payload arrives in a later read than its 9-byte
     * header (it reads the payload as the rest of a header, and closes the connection with
     * PROTOCOL_ERROR "invalid_settings_frame").
     */
    private synchronized void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        byte[] frame = new byte[9 + payload.length];
        frame[0] = (byte) (payload.length >>> 16);
        frame[1] = (byte) (payload.length >>> 8);
        frame[2] = (byte) payload.length;
        frame[3] = (byte) type;
        frame[4] = (byte) flags;
        frame[5] = (byte) (stream >>> 24);
        frame[6] = (byte) (stream >>> 16);
        frame[7] = (byte) (stream >>> 8);
        frame[8] = (byte) stream;
        System.arraycopy(payload, 0, frame, 9, payload.length);
        out.write(frame);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /**
     * Request headers as HPACK literals without indexing and without Huffman coding (RFC 7541,
     * section 6.2.2): any bytes go out as given, and no table state is shared with the server.
     */
    private static final class HeaderBlock {

        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        void add(String name, String value) {
            bytes.write(0x00);
            string(name.getBytes(StandardCharsets.ISO_8859_1));
            string(value.getBytes(StandardCharsets.ISO_8859_1));
        }

        /** A literal with incremental indexing and a new name (RFC 7541, section 6.2.1). */
        void addIndexed(String name, String value) {
            bytes.write(0x40);
            string(name.getBytes(StandardCharsets.ISO_8859_1));
            string(value.getBytes(StandardCharsets.ISO_8859_1));
        }

        byte[] bytes() {
            return bytes.toByteArray();
        }

        /** A string literal: its length as a 7-bit prefix integer (RFC 7541, section 5.1), then its bytes. */
        private void string(byte[] value) {
            int length = value.length;
            if (length < 0x7f) {
                bytes.write(length);
            } else {
                bytes.write(0x7f);
                length -= 0x7f;
                while (length >= 0x80) {
                    bytes.write((length & 0x7f) | 0x80);
                    length >>>= 7;
                }
                bytes.write(length);
            }
            bytes.writeBytes(value);
        }
    }
}
