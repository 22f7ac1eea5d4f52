package dev.quota.redis.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.redisson.client.RedisException;

/**
 * Parses RESP2 replies straight into what the store reads ({@link RespConnection}): a bulk string
 * as its {@code byte[]} (null: none), an array as a {@code List<Object>} of them (an empty one
 * shared, so a script that wrote allocates no answer), an integer as a {@code Long}, a status
 * ({@code +OK}, {@code +PONG}) as {@link #SIMPLE}, an error as an {@link ErrorReply}. Lengths and
 * integers are read digit by digit from the buffer, never through a {@code String}.
 */
final class RespReplies {

    /** What a reply not whole in the buffer yet parses to: the caller waits for more bytes. */
    static final Object INCOMPLETE = new Object();
    /** A status reply ({@code +OK}, {@code +PONG}): its text is never needed. */
    static final Object SIMPLE = new Object();
    /** A number's value when its line is not whole yet. */
    private static final long NO_LINE = Long.MIN_VALUE;

    private RespReplies() {
    }

    /** An error reply's text. */
    record ErrorReply(String message) {
        /** As Redisson's decoder raises it; {@code NOSCRIPT}, {@code MOVED} and {@code ASK} keep their first word. */
        RedisException exception(Channel channel) {
            return new RedisException(message + ". channel: " + channel);
        }
    }

    /**
     * The reply at {@code in}'s reader index, which it passes; {@link #INCOMPLETE} when the bytes
     * end before it does (the reader index is then anywhere: the caller puts it back).
     */
    static @Nullable Object parse(ByteBuf in) {
        if (!in.isReadable()) {
            return INCOMPLETE;
        }
        byte type = in.readByte();
        switch (type) {
            case '+' -> {
                return skipLine(in) ? SIMPLE : INCOMPLETE;
            }
            case '-' -> {
                int end = lineEnd(in);
                if (end < 0) {
                    return INCOMPLETE;
                }
                String message = in.toString(in.readerIndex(), end - in.readerIndex(), StandardCharsets.UTF_8);
                in.readerIndex(end + 2);
                return new ErrorReply(message);
            }
            case ':' -> {
                long value = number(in);
                return value == NO_LINE ? INCOMPLETE : Long.valueOf(value);
            }
            case '$' -> {
                return bulk(in);
            }
            case '*' -> {
                long count = number(in);
                if (count == NO_LINE) {
                    return INCOMPLETE;
                }
                if (count < 0) {
                    return null;
                }
                if (count == 0) {
                    return List.of();
                }
                Object[] items = new Object[(int) count];
                for (int i = 0; i < items.length; i++) {
                    Object item = parse(in);
                    if (item == INCOMPLETE) {
                        return INCOMPLETE;
                    }
                    items[i] = item;
                }
                return Arrays.asList(items);
            }
            default -> {
                return new ErrorReply("ERR unexpected reply type '" + (char) type + "'");
            }
        }
    }

    private static @Nullable Object bulk(ByteBuf in) {
        long length = number(in);
        if (length == NO_LINE) {
            return INCOMPLETE;
        }
        if (length < 0) {
            return null;
        }
        if (in.readableBytes() < length + 2) {
            return INCOMPLETE;
        }
        byte[] bytes = new byte[(int) length];
        in.readBytes(bytes);
        in.skipBytes(2);
        return bytes;
    }

    /** The decimal number up to the line's end, which it passes; {@link #NO_LINE} when the line is not whole. */
    private static long number(ByteBuf in) {
        int at = in.readerIndex();
        int end = in.writerIndex();
        boolean negative = at < end && in.getByte(at) == '-';
        if (negative) {
            at++;
        }
        long value = 0;
        for (; at < end; at++) {
            byte b = in.getByte(at);
            if (b == '\r') {
                if (at + 1 >= end) {
                    return NO_LINE;
                }
                in.readerIndex(at + 2);
                return negative ? -value : value;
            }
            value = value * 10 + (b - '0');
        }
        return NO_LINE;
    }

    /** The index of the {@code \r} ending the line at the reader index, if its {@code \n} came too; else -1. */
    private static int lineEnd(ByteBuf in) {
        int cr = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\r');
        return cr < 0 || cr + 1 >= in.writerIndex() ? -1 : cr;
    }

    private static boolean skipLine(ByteBuf in) {
        int end = lineEnd(in);
        if (end < 0) {
            return false;
        }
        in.readerIndex(end + 2);
        return true;
    }
}
