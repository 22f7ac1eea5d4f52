package dev.quota.consumer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The local Maven repository the consumer builds resolve quota from, and the check that it holds
 * exactly this build's artifacts: a consumer build against last week's install would test last
 * week's library.
 */
final class LocalRepository {

    /** What the consumer projects resolve: the parent POM, the BOM, and the three modules with their POMs. */
    private static final List<String[]> ARTIFACTS = List.of(
            new String[] {"", "quota-parent", "pom"},
            new String[] {"quota-bom", "quota-bom", "pom"},
            new String[] {"quota-core", "quota-core", "pom"},
            new String[] {"quota-core", "quota-core", "jar"},
            new String[] {"quota-redis", "quota-redis", "pom"},
            new String[] {"quota-redis", "quota-redis", "jar"},
            new String[] {"quota-jaxrs", "quota-jaxrs", "pom"},
            new String[] {"quota-jaxrs", "quota-jaxrs", "jar"});

    private static final Pattern SETTINGS_REPOSITORY = Pattern.compile("<localRepository>\\s*([^<]+?)\\s*</localRepository>");

    private LocalRepository() {
    }

    /**
     * The repository this Maven uses: as the build passes it ({@code settings.localRepository},
     * which already reflects {@code -Dmaven.repo.local} and settings.xml), else
     * {@code maven.repo.local}, else {@code ~/.m2/settings.xml}'s {@code localRepository}, else
     * {@code ~/.m2/repository}.
     */
    static Path path() {
        for (String property : new String[] {"quota.localRepository", "maven.repo.local"}) {
            String value = System.getProperty(property);
            if (value != null && !value.isBlank() && !value.startsWith("${")) {
                return Path.of(value).toAbsolutePath().normalize();
            }
        }
        Path m2 = Path.of(System.getProperty("user.home"), ".m2");
        Path settings = m2.resolve("settings.xml");
        if (Files.isRegularFile(settings)) {
            try {
                Matcher matcher = SETTINGS_REPOSITORY.matcher(Files.readString(settings, StandardCharsets.UTF_8));
                if (matcher.find()) {
                    return Path.of(matcher.group(1).replace("${user.home}", System.getProperty("user.home")));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return m2.resolve("repository");
    }

    /**
     * The differences between this build's artifacts and the ones installed in {@code repository},
     * one line each; empty when every installed artifact is byte for byte the one this build made.
     */
    static List<String> staleArtifacts(Path root, String version, Path repository) {
        List<String> stale = new ArrayList<>();
        for (String[] artifact : ARTIFACTS) {
            String module = artifact[0];
            String artifactId = artifact[1];
            String type = artifact[2];
            Path built = type.equals("pom") ? root.resolve(module).resolve("pom.xml")
                    : root.resolve(module).resolve("target").resolve(artifactId + "-" + version + ".jar");
            Path installed = repository.resolve("dev/quota").resolve(artifactId).resolve(version)
                    .resolve(artifactId + "-" + version + "." + type);
            if (!Files.isRegularFile(built)) {
                stale.add(root.relativize(built) + " was not built");
            } else if (!Files.isRegularFile(installed)) {
                stale.add(installed + " is not installed");
            } else {
                String builtHash = sha256(built);
                String installedHash = sha256(installed);
                if (!builtHash.equals(installedHash)) {
                    stale.add(installed + " (SHA-256 " + installedHash.substring(0, 12) + ") is not this build's "
                            + root.relativize(built) + " (" + builtHash.substring(0, 12) + ")");
                }
            }
        }
        return stale;
    }

    static String sha256(Path file) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
