package dev.quota.redis.internal.transport;

import dev.quota.redis.internal.encoding.CasScript;
import dev.quota.redis.internal.encoding.CasKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The store's commands as RESP2 bytes, each written whole into one pooled buffer of the right size
 * for {@link RespConnection}: the compare-and-swap script's {@code EVALSHA} straight from its keys
 * ({@link CasScript}'s argument written in place), a key's {@code GET}, a slot's {@code MGET}, the
 * keepalive's {@code PING} and the hand-shake's commands. Command names are mapped as the client's
 * command mapper maps them (a Redis with renamed commands) and encoded once.
 */
final class RespCommands {

    private static final byte[] CRLF = {'\r', '\n'};

    /** {@code $7\r\nEVALSHA\r\n$40\r\n<sha>\r\n}: every script's first two parameters. */
    private final byte[] evalsha;
    private final byte[] get;
    private final byte[] mget;
    private final byte[] ping;
    private final UnaryOperator<String> names;

    RespCommands(UnaryOperator<String> names, String sha) {
        this.names = names;
        this.evalsha = concat(bulk(names.apply("EVALSHA")), bulk(sha));
        this.get = bulk(names.apply("GET"));
        this.mget = bulk(names.apply("MGET"));
        this.ping = concat("*1\r\n".getBytes(StandardCharsets.US_ASCII), bulk(names.apply("PING")));
    }

    /** {@code EVALSHA <sha> <n> <keys> <argument>} on {@code keys}, as {@link CasScript#call} has it sent. */
    ByteBuf script(ByteBufAllocator allocator, List<? extends CasKey> keys) {
        int n = keys.size();
        int argument = CasScript.argumentLength(keys);
        int length = arrayHeader(4 + n) + evalsha.length + bulkLength(CasScript.digits(n)) + bulkLength(argument);
        for (int i = 0; i < n; i++) {
            length += bulkLength(ByteBufUtil.utf8Bytes(keys.get(i).key));
        }
        ByteBuf to = allocator.ioBuffer(length, length);
        header(to, '*', 4 + n);
        to.writeBytes(evalsha);
        header(to, '$', CasScript.digits(n));
        CasScript.decimal(to, n);
        to.writeBytes(CRLF);
        for (int i = 0; i < n; i++) {
            key(to, keys.get(i).key);
        }
        header(to, '$', argument);
        CasScript.writeArgument(to, keys);
        to.writeBytes(CRLF);
        return to;
    }

    /**
     * The parameters of a {@code script} command as Redisson's executor takes them, read back from
     * its bytes (from index 0: Netty moves the reader index as it writes): the SHA-1, the key
     * count and the keys as strings, the argument a slice of {@code command}, sharing its
     * references.
     */
    Object[] scriptCall(ByteBuf command) {
        int at = 1;
        int count = (int) digitsAt(command, at);
        at = command.indexOf(at, command.writerIndex(), (byte) '\n') + 1;
        Object[] call = new Object[count - 1];
        for (int i = -1; i < call.length; i++) {
            int length = (int) digitsAt(command, at + 1);
            int from = command.indexOf(at, command.writerIndex(), (byte) '\n') + 1;
            if (i == call.length - 1) {
                call[i] = command.slice(from, length);
            } else if (i >= 0) {
                call[i] = command.toString(from, length, StandardCharsets.UTF_8);
            }
            at = from + length + 2;
        }
        return call;
    }

    /** The decimal number at {@code at}, up to the line's end. */
    private static long digitsAt(ByteBuf bytes, int at) {
        long value = 0;
        for (int i = at; bytes.getByte(i) != '\r'; i++) {
            value = value * 10 + (bytes.getByte(i) - '0');
        }
        return value;
    }

    /** {@code GET <key>}. */
    ByteBuf get(ByteBufAllocator allocator, String key) {
        ByteBuf to = allocator.ioBuffer(arrayHeader(2) + get.length + bulkLength(ByteBufUtil.utf8Bytes(key)));
        header(to, '*', 2);
        to.writeBytes(get);
        key(to, key);
        return to;
    }

    /** {@code MGET <keys>}. */
    ByteBuf mget(ByteBufAllocator allocator, Object[] keys) {
        int length = arrayHeader(1 + keys.length) + mget.length;
        for (Object key : keys) {
            length += bulkLength(ByteBufUtil.utf8Bytes((String) key));
        }
        ByteBuf to = allocator.ioBuffer(length, length);
        header(to, '*', 1 + keys.length);
        to.writeBytes(mget);
        for (Object key : keys) {
            key(to, (String) key);
        }
        return to;
    }

    /** {@code PING}. */
    ByteBuf ping(ByteBufAllocator allocator) {
        return allocator.ioBuffer(ping.length).writeBytes(ping);
    }

    /** A hand-shake command: {@code command} mapped, then {@code args} as they are. */
    ByteBuf of(ByteBufAllocator allocator, String command, String... args) {
        ByteBuf to = allocator.ioBuffer();
        header(to, '*', 1 + args.length);
        to.writeBytes(bulk(names.apply(command)));
        for (String arg : args) {
            key(to, arg);
        }
        return to;
    }

    private static void key(ByteBuf to, String key) {
        int length = ByteBufUtil.utf8Bytes(key);
        header(to, '$', length);
        // reserves exactly the key's bytes: writeUtf8 would reserve three a character, past a
        // buffer sized to the command
        ByteBufUtil.reserveAndWriteUtf8(to, key, length);
        to.writeBytes(CRLF);
    }

    private static void header(ByteBuf to, char type, int value) {
        to.writeByte(type);
        CasScript.decimal(to, value);
        to.writeBytes(CRLF);
    }

    private static int arrayHeader(int count) {
        return 1 + CasScript.digits(count) + 2;
    }

    private static int bulkLength(int length) {
        return 1 + CasScript.digits(length) + 2 + length + 2;
    }

    private static byte[] bulk(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return concat(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII), bytes, CRLF);
    }

    private static byte[] concat(byte[]... parts) {
        int length = 0;
        for (byte[] part : parts) {
            length += part.length;
        }
        byte[] all = new byte[length];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, all, at, part.length);
            at += part.length;
        }
        return all;
    }
}
