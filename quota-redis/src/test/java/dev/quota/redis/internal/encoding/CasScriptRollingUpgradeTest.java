package dev.quota.redis.internal.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.redis.internal.engine.Cell;
import dev.quota.testkit.RedisExtension;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.config.Config;

/**
 * The script that compares digests and the one before it, which sent the expected bytes whole,
 * on one Redis: the stored value is the state's bytes for both, so instances of either version
 * share a key during a rolling upgrade, each one's compare-and-swap exact against the other's writes.
 */
class CasScriptRollingUpgradeTest {

    /**
     * The script of the previous version: the expected bytes sent whole and compared as they are. Kept
     * whole rather than derived from {@link CasScript#TEXT}, which it matches but for that comparison:
     * a released script does not change when the current one does.
     */
    private static final String PREVIOUS_TEXT = """
            local a = ARGV[1]
            local sep = string.find(a, ';', 1, true)
            local h = {}
            for n in string.gmatch(string.sub(a, 1, sep - 1), '%d+') do h[#h + 1] = n end
            local pos = sep + 1
            local bad = {}
            local new = {}
            for i = 1, #KEYS do
              local el = tonumber(h[3 * i - 2])
              local nl = tonumber(h[3 * i - 1])
              local exp = string.sub(a, pos, pos + el - 1)
              new[i] = string.sub(a, pos + el, pos + el + nl - 1)
              pos = pos + el + nl
              local cur = redis.call('GET', KEYS[i])
              if (el == 0 and cur) or (el > 0 and cur ~= exp) then
                bad[#bad + 1] = tostring(i)
                bad[#bad + 1] = cur or ''
              end
            end
            if #bad > 0 then return bad end
            for i = 1, #KEYS do
              if new[i] ~= '' then
                local ttl = h[3 * i]
                if ttl ~= '0' then redis.call('SET', KEYS[i], new[i], 'PX', ttl)
                else redis.call('SET', KEYS[i], new[i]) end
              end
            end
            return {}""";
    private static final String KEY = "quota:{c.upgrade}:p";

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private RedissonClient client;

    @BeforeEach
    void connect() {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri());
        client = Redisson.create(config);
    }

    @AfterEach
    void disconnect() {
        client.shutdown();
    }

    @Test
    void previousAndDigestScripts_alternatingOnOneKey_eachWritesOnlyOnWhatTheOtherLeft() {
        byte[] s1 = state(1);
        byte[] s2 = state(2);
        byte[] s3 = state(3);
        byte[] s4 = state(4);

        assertThat(previous(null, s1)).as("previous version creates the key").isEmpty();
        assertThat(digest(s1, s2)).as("digest version on what the previous one wrote").isEmpty();
        assertThat(previous(s1, s3)).as("previous version on a stale state: refused, told what is there")
                .containsExactly("1", hex(s2));
        assertThat(previous(s2, s3)).as("previous version on what the digest version wrote").isEmpty();
        assertThat(digest(s2, s4)).as("digest version on a stale state: refused, told what is there")
                .containsExactly("1", hex(s3));
        assertThat(digest(null, s4)).as("digest version expecting no key").containsExactly("1", hex(s3));
        assertThat(digest(s3, s4)).isEmpty();
        assertThat(previous(null, s1)).as("previous version expecting no key").containsExactly("1", hex(s4));

        assertThat(hex((byte[]) client.getBucket(KEY, ByteArrayCodec.INSTANCE).get())).isEqualTo(hex(s4));
    }

    /** A state's bytes as the store writes them: binary, never empty, with bytes no text encoding keeps. */
    private static byte[] state(int n) {
        byte[] bytes = new byte[123];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31 + n * 7);
        }
        bytes[0] = 0;
        bytes[1] = (byte) 0xFF;
        bytes[122] = (byte) n;
        return bytes;
    }

    /** The previous version's call: the argument with the expected bytes whole. */
    private List<String> previous(byte @Nullable [] expected, byte[] written) {
        int e = expected == null ? 0 : expected.length;
        ByteBuf argument = Unpooled.buffer();
        argument.writeCharSequence(e + " " + written.length + " 60000 ;", StandardCharsets.US_ASCII);
        if (expected != null) {
            argument.writeBytes(expected);
        }
        argument.writeBytes(written);
        return eval(PREVIOUS_TEXT, ByteBufUtil.getBytes(argument));
    }

    /** This version's call, its argument as {@link CasScript#writeArgument} writes it. */
    private List<String> digest(byte @Nullable [] expected, byte[] written) {
        Cell cell = new Cell(KEY, expected, null, expected != null, 0);
        cell.sending(written);
        cell.ttlMillis = 60_000;
        List<Cell> cells = List.of(cell);
        ByteBuf argument = Unpooled.buffer(CasScript.argumentLength(cells));
        CasScript.writeArgument(argument, cells);
        return eval(CasScript.TEXT, ByteBufUtil.getBytes(argument));
    }

    /** The answer, its bytes in hex: the index of a differing key and what it holds. */
    private List<String> eval(String text, byte[] argument) {
        List<Object> answer = client.getScript(ByteArrayCodec.INSTANCE).eval(KEY, RScript.Mode.READ_WRITE, text,
                RScript.ReturnType.LIST, List.of(KEY), (Object) argument);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < answer.size(); i++) {
            byte[] part = (byte[]) answer.get(i);
            out.add(i % 2 == 0 ? new String(part, StandardCharsets.US_ASCII) : hex(part));
        }
        return out;
    }

    private static String hex(byte[] bytes) {
        return ByteBufUtil.hexDump(bytes);
    }
}
