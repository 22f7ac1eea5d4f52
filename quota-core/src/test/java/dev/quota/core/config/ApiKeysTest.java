package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ApiKeysTest {

    private static final String TEST_HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
    private static final String FOO_HASH = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

    @Test
    void sha256Hex_ofTest_isTheKnownLowerCaseDigest() {
        assertThat(ApiKeys.sha256Hex("test")).isEqualTo(TEST_HASH);
    }

    @Test
    void sha256Hex_hashesUtf8Bytes() {
        // printf 'schlüssel' | sha256sum (UTF-8 shell)
        assertThat(ApiKeys.sha256Hex("schlüssel"))
                .isEqualTo("ccec7a8e3e039f0b6b308a81f438e1d07a59c8c896b4f237d10c3eecb8375ef7")
                .hasSize(64);
    }

    @Test
    void main_withArguments_printsOneHashPerArgument() throws Exception {
        assertThat(runMain(new String[] {"test", "foo"}, "")).isEqualTo(TEST_HASH + "\n" + FOO_HASH + "\n");
    }

    @Test
    void main_withoutArguments_hashesEachNonEmptyLineOfStdin() throws Exception {
        assertThat(runMain(new String[0], "test\n\nfoo\r\n")).isEqualTo(TEST_HASH + "\n" + FOO_HASH + "\n");
    }

    private static String runMain(String[] args, String stdin) throws Exception {
        PrintStream originalOut = System.out;
        InputStream originalIn = System.in;
        var out = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            ApiKeys.main(args);
        } finally {
            System.setOut(originalOut);
            System.setIn(originalIn);
        }
        return out.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n");
    }

    @Test
    void wellFormed_acceptsVisibleAsciiUpTo256Characters() {
        assertThat(ApiKeys.wellFormed("k".repeat(256))).isTrue();
        assertThat(ApiKeys.wellFormed("!~09AZaz")).isTrue();
        assertThat(ApiKeys.wellFormed("")).isFalse();
        assertThat(ApiKeys.wellFormed("k".repeat(257))).isFalse();
        assertThat(ApiKeys.wellFormed("a b")).isFalse();
        assertThat(ApiKeys.wellFormed("a\u007fb")).isFalse();
        assertThat(ApiKeys.wellFormed("caf\u00e9")).isFalse();
    }
}
