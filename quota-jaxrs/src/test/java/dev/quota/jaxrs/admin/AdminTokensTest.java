package dev.quota.jaxrs.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdminTokensTest {

    @Test
    void commonGeneratedTokens_areStrongEnough() {
        for (String token : new String[] {
            "3f9c1e0a7b5d4c2e8f6a1b3d5c7e9f0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e", // openssl rand -hex 32
            "9c1e0a7b5d4c2e8f6a1b3d5c7e9f0a2b", // openssl rand -hex 16
            "u3N0i6xq8ZP1mW2k9Yt7Lr5Vb4Hs0Ce6Jd8Fg2Ka1Q=", // openssl rand -base64 32
            "1b4e28ba-2fa1-11d2-883f-0016d3cca427", // a UUID
            "0123456789012345678901234567890123456789", // 40 digits: 133 bits
        }) {
            assertThatCode(() -> AdminTokens.requireStrong(token)).as(token).doesNotThrowAnyException();
        }
    }

    @Test
    void shortOrRepetitiveOrGuessableTokens_areRefused_withoutEchoingThem() {
        assertThatThrownBy(() -> AdminTokens.requireStrong("s3cret-admin-token-2026"))
                .hasMessage("admin token must be 32 to 256 characters but was 23 characters long");
        assertThatThrownBy(() -> AdminTokens.requireStrong("abababababababababababababababab"))
                .hasMessage("admin token must have at least 10 different characters but has 2 (it is 32 characters"
                        + " long)");
        assertThatThrownBy(() -> AdminTokens.requireStrong("01234567890123456789012345678901"))
                .hasMessage("admin token is too easy to guess: 32 characters from an alphabet of 10 give about 106"
                        + " bits, at least 128 are needed (make it longer or mix letters, digits and symbols)");
        assertThatThrownBy(() -> AdminTokens.requireStrong("tab\tseparated-token-0123456789abcdef"))
                .hasMessage("admin token must be visible ASCII characters (0x21-0x7E) only; character 4 of 36 is not");
        assertThatThrownBy(() -> AdminTokens.requireStrong("x".repeat(257)))
                .hasMessage("admin token must be 32 to 256 characters but was 257 characters long");
    }

    @Test
    void generate_makesStrongTokens_differentEachTime() {
        Set<String> tokens = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            String token = AdminTokens.generate();
            assertThat(token).hasSize(43).matches("[A-Za-z0-9_-]{43}");
            AdminTokens.requireStrong(token);
            tokens.add(token);
        }
        assertThat(tokens).hasSize(100);
    }

    @Test
    void fromFile_readsTheOwnersToken_withoutItsNewline(@TempDir Path dir) throws IOException {
        String token = AdminTokens.generate();
        Path file = Files.writeString(dir.resolve("token"), token + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        assertThat(AdminTokens.fromFile(file)).isEqualTo(token);
    }

    @Test
    void fromFile_thatGroupOrOthersMayRead_isRefused_withoutTheToken(@TempDir Path dir) throws IOException {
        String token = AdminTokens.generate();
        Path file = Files.writeString(dir.resolve("token"), token);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> AdminTokens.fromFile(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("chmod 600").hasMessageNotContaining(token);
    }

    @Test
    void fromFile_withAWeakToken_namesTheFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("token"), "password");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        assertThatThrownBy(() -> AdminTokens.fromFile(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(file + ": admin token must be 32 to 256 characters");
    }
}
