package dev.quota.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The guard against consumer builds that would resolve another build's artifacts. */
class LocalRepositoryTest {

    private static final String VERSION = "9.9.9-SNAPSHOT";
    private static final List<String> MODULES = List.of("quota-core", "quota-redis", "quota-jaxrs");

    @TempDir
    Path root;
    @TempDir
    Path repository;

    /** A checkout whose modules were built, and a repository where each was installed as built. */
    private void buildAndInstall() throws IOException {
        write(root.resolve("pom.xml"), "parent");
        write(installed("quota-parent", "pom"), "parent");
        write(root.resolve("quota-bom/pom.xml"), "bom");
        write(installed("quota-bom", "pom"), "bom");
        for (String module : MODULES) {
            write(root.resolve(module).resolve("pom.xml"), module + " pom");
            write(installed(module, "pom"), module + " pom");
            write(root.resolve(module).resolve("target").resolve(module + "-" + VERSION + ".jar"), module + " jar");
            write(installed(module, "jar"), module + " jar");
        }
    }

    private Path installed(String artifactId, String type) {
        return repository.resolve("dev/quota").resolve(artifactId).resolve(VERSION)
                .resolve(artifactId + "-" + VERSION + "." + type);
    }

    private static void write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    @Test
    void staleArtifacts_whenEveryInstalledArtifactIsThisBuilds_isEmpty() throws IOException {
        buildAndInstall();

        assertThat(LocalRepository.staleArtifacts(root, VERSION, repository)).isEmpty();
    }

    @Test
    void staleArtifacts_namesAnInstalledJarFromAnotherBuild() throws IOException {
        buildAndInstall();
        write(installed("quota-jaxrs", "jar"), "last week's quota-jaxrs");

        List<String> stale = LocalRepository.staleArtifacts(root, VERSION, repository);

        assertThat(stale).singleElement().asString()
                .startsWith(installed("quota-jaxrs", "jar") + " (SHA-256 ")
                .endsWith("is not this build's quota-jaxrs/target/quota-jaxrs-" + VERSION + ".jar ("
                        + LocalRepository.sha256(root.resolve("quota-jaxrs/target/quota-jaxrs-" + VERSION + ".jar"))
                        .substring(0, 12) + ")");
    }

    @Test
    void staleArtifacts_namesWhatIsNotInstalledOrNotBuilt() throws IOException {
        buildAndInstall();
        Files.delete(installed("quota-bom", "pom"));
        Files.delete(root.resolve("quota-core/target/quota-core-" + VERSION + ".jar"));

        assertThat(LocalRepository.staleArtifacts(root, VERSION, repository)).containsExactly(
                installed("quota-bom", "pom") + " is not installed",
                "quota-core/target/quota-core-" + VERSION + ".jar was not built");
    }
}
