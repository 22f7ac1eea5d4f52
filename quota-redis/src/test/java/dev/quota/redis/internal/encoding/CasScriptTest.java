package dev.quota.redis.internal.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import dev.quota.redis.internal.engine.Cell;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class CasScriptTest {

    @Test
    void call_isTheKeyCountTheKeys_andOneArgument_headerDigitsThenTheBytesInOrder() {
        Cell created = new Cell("k:new", null, null, false, Long.MIN_VALUE);
        Cell checked = new Cell("k:old", new byte[] {'o', 'l'}, null, true, 0);
        created.sending(new byte[] {'n', 'e', 'w'});
        created.ttlMillis = 1_500;
        checked.ttlMillis = -1;

        Object[] call = CasScript.call(CasScript.sha(CasScript.TEXT), List.of(created, checked),
                ByteBufAllocator.DEFAULT);

        assertThat(call).hasSize(5);
        assertThat(call[0]).isEqualTo(CasScript.sha(CasScript.TEXT));
        assertThat(call[1]).isEqualTo("2");
        assertThat(call[2]).isEqualTo("k:new");
        assertThat(call[3]).isEqualTo("k:old");
        ByteBuf argument = CasScript.argument(call);
        // k:new: expects no key, writes 3 bytes, offers no take, for 1,500 ms; k:old: expects the SHA-1 of its 2 bytes
        // (40 hex characters, as redis.sha1hex answers it), writes nothing
        assertThat(text(argument)).isEqualTo("0 3 0 1500 40 0 0 0 ;new665b39a1e96a9a15fc99f73183af3f04bf8111eb");
        assertThat(argument.refCnt()).isEqualTo(1);
        argument.release();
    }

    @Test
    void stateDigest_isTheSha1InLowercaseHex_asRedisSha1hexAnswersIt() {
        byte[] state = new byte[123];
        for (int i = 0; i < state.length; i++) {
            state[i] = (byte) (i * 37);
        }
        ByteBuf hex = ByteBufAllocator.DEFAULT.heapBuffer();
        StateDigest digest = StateDigest.local().of(state);
        StateDigest.writeHex(hex, digest.high(), digest.middle(), digest.low());

        assertThat(text(hex)).isEqualTo(sha1Hex(state)).hasSize(StateDigest.HEX_LENGTH);
        hex.release();
    }

    @Test
    void withText_isTheSameCallWithTheScriptsTextForItsSha() {
        Cell cell = new Cell("k", null, null, false, Long.MIN_VALUE);
        cell.sending(new byte[] {'x'});
        Object[] call = CasScript.call(CasScript.sha(CasScript.TEXT), List.of(cell), ByteBufAllocator.DEFAULT);

        Object[] text = CasScript.withText(call, CasScript.TEXT);

        assertThat(text[0]).isEqualTo(CasScript.TEXT);
        assertThat(text).hasSameSizeAs(call);
        assertThat(text[1]).isSameAs(call[1]);
        assertThat(text[2]).isEqualTo("k");
        assertThat(CasScript.argument(text)).isSameAs(CasScript.argument(call));
        CasScript.argument(call).release();
    }

    @Test
    void sha_isTheHexSha1RedisNamesTheScriptBy() {
        // SHA-1 of "return 1", as SCRIPT LOAD answers it
        assertThat(CasScript.sha("return 1")).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    }

    @Test
    void text_namesTheCommandsAsTheClientsMapperDoes_forARedisThatRenamedThem() {
        String renamed = CasScript.text(name -> name.equals("GET") ? "GET_7f3a" : name);

        assertThat(renamed).contains("redis.call('GET_7f3a', KEYS[i])").doesNotContain("redis.call('GET'")
                .contains("redis.call('SET', KEYS[i], value, 'PX', ttl)");
        assertThat(CasScript.text(name -> name)).isEqualTo(CasScript.TEXT);
    }

    @Test
    void digits_countsDecimalDigits() {
        assertThat(CasScript.digits(0)).isEqualTo(1);
        assertThat(CasScript.digits(9)).isEqualTo(1);
        assertThat(CasScript.digits(10)).isEqualTo(2);
        assertThat(CasScript.digits(86_400_000)).isEqualTo(8);
        assertThat(CasScript.digits(Long.MAX_VALUE)).isEqualTo(19);
    }

    private static String sha1Hex(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    private static String text(ByteBuf buffer) {
        return buffer.toString(buffer.readerIndex(), buffer.readableBytes(), StandardCharsets.US_ASCII);
    }
}
