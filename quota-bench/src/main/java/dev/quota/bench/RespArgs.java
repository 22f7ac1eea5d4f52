package dev.quota.bench;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Reads the arguments of a command written as RESP bytes (an array of bulk strings), leaving the buffer as it was. */
final class RespArgs {

    private RespArgs() {
    }

    /** Names returned without allocating: counting must not add to the allocation the bench measures. */
    private static final String[] KNOWN = {"EVALSHA", "EVAL", "GET", "MGET", "SET", "DEL", "PING", "AUTH", "CLIENT", "SELECT"};

    /** The command's name (its first argument), or null when the bytes are not a RESP command. */
    static @org.jspecify.annotations.Nullable String name(ByteBuf command) {
        int end = command.writerIndex();
        int at = command.readerIndex();
        if (at >= end || command.getByte(at) != '*') {
            return null;
        }
        at = command.indexOf(at, end, (byte) '\n') + 1;
        if (at <= 0 || at >= end || command.getByte(at) != '$') {
            return null;
        }
        int line = command.indexOf(at, end, (byte) '\r');
        if (line < 0) {
            return null;
        }
        int length = 0;
        for (int i = at + 1; i < line; i++) {
            length = length * 10 + command.getByte(i) - '0';
        }
        int from = line + 2;
        if (from + length > end) {
            return null;
        }
        for (String known : KNOWN) {
            if (known.length() == length && same(command, from, known)) {
                return known;
            }
        }
        return command.toString(from, length, StandardCharsets.ISO_8859_1).toUpperCase(java.util.Locale.ROOT);
    }

    private static boolean same(ByteBuf bytes, int from, String text) {
        for (int i = 0; i < text.length(); i++) {
            if (bytes.getByte(from + i) != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The first {@code max} arguments of the command at {@code command}'s reader index, as text. */
    static String[] read(ByteBuf command, int max) {
        int end = command.writerIndex();
        int at = command.readerIndex() + 1;
        int line = command.indexOf(at, end, (byte) '\r');
        if (line < 0) {
            return new String[0];
        }
        int count = Integer.parseInt(command.toString(at, line - at, StandardCharsets.US_ASCII));
        at = line + 2;
        List<String> args = new ArrayList<>();
        for (int i = 0; i < count && args.size() < max && at < end && command.getByte(at) == '$'; i++) {
            line = command.indexOf(at, end, (byte) '\r');
            int length = Integer.parseInt(command.toString(at + 1, line - at - 1, StandardCharsets.US_ASCII));
            at = line + 2;
            args.add(command.toString(at, Math.min(length, end - at), StandardCharsets.ISO_8859_1));
            at += length + 2;
        }
        return args.toArray(new String[0]);
    }
}
