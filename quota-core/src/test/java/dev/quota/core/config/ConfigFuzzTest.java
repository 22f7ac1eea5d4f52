package dev.quota.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.quota.core.QuotaConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever the bytes, the loader returns a config or throws InvalidConfigException with
 * at least one error; never another exception. The text and the byte-stream entry points agree on
 * every input that is valid UTF-8 (the same config, or the same errors), and every error is one
 * printable line (the exception lists them one per line, and they go to logs). Inputs are the valid
 * file with seeded mutations, so a failure reproduces exactly.
 */
class ConfigFuzzTest {

    private static final long SEED = 20_240_601L;
    private static final int ITERATIONS = 5_000;

    @Test
    void parse_mutatedValidFile_returnsConfigOrInvalidConfigException() throws IOException {
        String valid = Files.readString(QuotaConfigLoaderTest.resource("valid.yaml"));
        var random = new Random(SEED);
        int loaded = 0;
        int refused = 0;
        int compared = 0;
        for (int n = 0; n < ITERATIONS; n++) {
            int i = n;
            byte[] input = mutate(valid.getBytes(StandardCharsets.UTF_8), random);
            String shown = new String(input, StandardCharsets.UTF_8);
            Object fromBytes = outcome(() -> QuotaConfigLoader.parse(new ByteArrayInputStream(input), "fuzz"), i, shown);
            if (fromBytes instanceof QuotaConfig config) {
                assertThat(config.plans()).isNotEmpty();
                loaded++;
            } else {
                @SuppressWarnings("unchecked")
                List<ConfigError> errors = (List<ConfigError>) fromBytes;
                assertThat(errors).as("input %d: the errors of a refused config", i).isNotEmpty()
                        .allSatisfy(error -> assertThat(error.toString()).as("input %d: an error line", i)
                                .isNotBlank().doesNotContainPattern("[\\p{Cntrl}\\p{Cs}]"));
                refused++;
            }
            String text = utf8(input);
            if (text != null) {
                Object fromText = outcome(() -> QuotaConfigLoader.parse(text, "fuzz"), i, shown);
                assertThat(fromText).as("input %d: parse(String) against parse(InputStream) of:%n%s", i, shown)
                        .isEqualTo(fromBytes);
                compared++;
            }
        }
        System.out.printf("config fuzz: %d inputs tried, %d loaded, %d refused, %d also read as text%n", ITERATIONS,
                loaded, refused, compared);
        assertThat(refused).as("mutations that broke the file").isPositive();
        assertThat(loaded).as("mutations the file survived (e.g. in comments)").isPositive();
        assertThat(compared).as("inputs that are valid UTF-8, read both ways").isGreaterThan(ITERATIONS / 2);
    }

    /** The config, or the errors it was refused with; any other exception fails the test. */
    private static Object outcome(Supplier<QuotaConfig> load, int input, String shown) {
        try {
            return load.get();
        } catch (InvalidConfigException e) {
            return e.errors();
        } catch (RuntimeException | StackOverflowError e) {
            return fail("input " + input + " (seed " + SEED + ") threw " + e + " for:\n" + shown, e);
        }
    }

    /** The bytes as text, or null when they are not valid UTF-8. */
    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** One to four edits: delete, duplicate, swap, random byte, or a YAML-significant character. */
    private static byte[] mutate(byte[] original, Random random) {
        var bytes = new java.io.ByteArrayOutputStream();
        byte[] current = original;
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits && current.length > 1; e++) {
            int at = random.nextInt(current.length);
            int length = 1 + random.nextInt(Math.min(16, current.length - at));
            bytes.reset();
            switch (random.nextInt(5)) {
                case 0 -> {
                    bytes.write(current, 0, at);
                    bytes.write(current, at + length, current.length - at - length);
                }
                case 1 -> {
                    bytes.write(current, 0, at + length);
                    bytes.write(current, at, current.length - at);
                }
                case 2 -> {
                    int other = random.nextInt(current.length);
                    byte[] copy = current.clone();
                    copy[at] = current[other];
                    copy[other] = current[at];
                    bytes.write(copy, 0, copy.length);
                }
                case 3 -> {
                    bytes.write(current, 0, at);
                    bytes.write(random.nextInt(256));
                    bytes.write(current, at, current.length - at);
                }
                default -> {
                    byte[] significant = ":-[]{}&*!|>'\"%@`#,?\n\t ".getBytes(StandardCharsets.UTF_8);
                    bytes.write(current, 0, at);
                    bytes.write(significant[random.nextInt(significant.length)]);
                    bytes.write(current, at + 1, current.length - at - 1);
                }
            }
            current = bytes.toByteArray();
        }
        return current;
    }
}
