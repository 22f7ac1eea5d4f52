package dev.quota.redis.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.redis.internal.encoding.CasScript;
import dev.quota.redis.internal.engine.Cell;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The store's commands as RESP bytes: exactly the bytes Redis reads for the parameters Redisson's
 * executor would have sent, in a buffer of exactly their size, and read back into those parameters
 * for a call that goes through the executor after all; and replies parsed into what the store reads.
 */
class RespCommandsTest {

    private static final String SHA = "0123456789abcdef0123456789abcdef01234567";
    private final RespCommands commands = new RespCommands(UnaryOperator.identity(), SHA);

    @Test
    void script_isTheExecutorsParametersInResp_inABufferOfExactlyItsSize() {
        byte[] expected = new byte[132];
        Arrays.fill(expected, (byte) 7);
        Cell first = new Cell("quota:b:first", expected, null, true, 0);
        first.sending(new byte[] {1, 2, 3});
        first.ttlMillis = 86_400_000;
        Cell second = new Cell("quota:b:second-" + "k".repeat(60), null, null, false, 0);
        List<Cell> cells = List.of(first, second);

        ByteBuf command = commands.script(ByteBufAllocator.DEFAULT, cells);
        Object[] call = CasScript.call(SHA, cells, ByteBufAllocator.DEFAULT);
        try {
            assertThat(command.writerIndex()).isEqualTo(command.capacity());
            assertThat(command.toString(StandardCharsets.ISO_8859_1)).isEqualTo(resp("EVALSHA", call));
            Object[] back = commands.scriptCall(command);
            assertThat(back).hasSize(call.length);
            assertThat(Arrays.copyOf(back, back.length - 1)).containsExactly(Arrays.copyOf(call, call.length - 1));
            assertThat(ByteBufUtil.equals(CasScript.argument(back), CasScript.argument(call))).isTrue();
        } finally {
            command.release();
            CasScript.argument(call).release();
        }
    }

    @Test
    void readsAndPing_areRespArraysOfBulkStrings_longKeysInABufferOfTheirSize() {
        String longKey = "quota:b:" + "k".repeat(60); // no room for three bytes a character
        ByteBuf get = commands.get(ByteBufAllocator.DEFAULT, "quota:k");
        ByteBuf mget = commands.mget(ByteBufAllocator.DEFAULT, new Object[] {"a", "bc"});
        ByteBuf many = commands.mget(ByteBufAllocator.DEFAULT, new Object[] {longKey, longKey, longKey});
        ByteBuf ping = commands.ping(ByteBufAllocator.DEFAULT);
        try {
            assertThat(get.toString(StandardCharsets.UTF_8)).isEqualTo("*2\r\n$3\r\nGET\r\n$7\r\nquota:k\r\n");
            assertThat(mget.toString(StandardCharsets.UTF_8)).isEqualTo("*3\r\n$4\r\nMGET\r\n$1\r\na\r\n$2\r\nbc\r\n");
            assertThat(many.toString(StandardCharsets.UTF_8)).isEqualTo(resp("MGET", new Object[] {longKey, longKey, longKey}));
            assertThat(ping.toString(StandardCharsets.UTF_8)).isEqualTo("*1\r\n$4\r\nPING\r\n");
        } finally {
            get.release();
            mget.release();
            many.release();
            ping.release();
        }
    }

    @Test
    void replies_parseIntoWhatTheStoreReads_andWaitForTheirLastByte() {
        ByteBuf in = Unpooled.copiedBuffer(
                "*0\r\n*4\r\n$1\r\n2\r\n$0\r\n\r\n$-1\r\n:12\r\n+OK\r\n-NOSCRIPT no\r\n$3\r\nab", StandardCharsets.UTF_8);
        assertThat(RespReplies.parse(in)).isSameAs(List.of());
        List<?> differences = (List<?>) RespReplies.parse(in);
        assertThat(differences).hasSize(4);
        assertThat((byte[]) differences.get(0)).containsExactly('2');
        assertThat((byte[]) differences.get(1)).isEmpty();
        assertThat(differences.get(2)).isNull();
        assertThat(differences.get(3)).isEqualTo(12L);
        assertThat(RespReplies.parse(in)).isSameAs(RespReplies.SIMPLE);
        assertThat(RespReplies.parse(in)).isEqualTo(new RespReplies.ErrorReply("NOSCRIPT no"));
        assertThat(RespReplies.parse(in)).isSameAs(RespReplies.INCOMPLETE);
    }

    /** The RESP array of bulk strings Redis reads for {@code name} and {@code args}. */
    private static String resp(String name, Object[] args) {
        StringBuilder out = new StringBuilder("*" + (args.length + 1) + "\r\n");
        out.append('$').append(name.length()).append("\r\n").append(name).append("\r\n");
        for (Object arg : args) {
            String text = arg instanceof ByteBuf buf ? buf.toString(StandardCharsets.ISO_8859_1) : (String) arg;
            int length = arg instanceof ByteBuf buf ? buf.readableBytes() : text.getBytes(StandardCharsets.UTF_8).length;
            out.append('$').append(length).append("\r\n").append(text).append("\r\n");
        }
        return out.toString();
    }
}
