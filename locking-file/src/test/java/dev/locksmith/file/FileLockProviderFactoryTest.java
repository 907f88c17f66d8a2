package dev.locksmith.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.core.LockConfigurationException;
import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockProviders;
import dev.locksmith.core.spi.LockProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileLockProviderFactoryTest {
  @TempDir Path dir;

  @Test
  void isFoundByScheme() {
    try (LockProvider provider = LockProviders.create(dir.toUri() + "?skew=1s&poll-max=100ms")) {
      assertThat(provider).isInstanceOf(FileLockProvider.class);
      assertThat(provider.description()).contains(dir.toString());
      assertThat(provider.tryAcquire(TestProviders.request("x", Duration.ofSeconds(5))))
          .isPresent();
    }
  }

  @Test
  void aMissingDirectoryFailsCallsNamingThePathAndTheFix() {
    Path missing = dir.resolve("nope");
    try (LockProvider provider = LockProviders.create(missing.toUri().toString())) {
      assertThatThrownBy(
              () -> provider.tryAcquire(TestProviders.request("x", Duration.ofSeconds(5))))
          .isInstanceOf(LockProviderException.class)
          .hasMessageContaining("lock directory " + missing + " does not exist")
          .hasMessageContaining("create-dirs=true");
    }
  }

  @Test
  void createDirsCreatesAMissingDirectoryOnTheFirstCall() {
    Path missing = dir.resolve("a/b");
    try (LockProvider provider = LockProviders.create(missing.toUri() + "?create-dirs=true")) {
      assertThat(missing).as("creation does not touch the directory").doesNotExist();
      assertThat(provider.tryAcquire(TestProviders.request("x", Duration.ofSeconds(5))))
          .isPresent();
      assertThat(missing).isDirectory();
    }
  }

  @Test
  void aFileInsteadOfADirectoryFails() throws Exception {
    Path file = Files.createFile(dir.resolve("plain"));
    assertThatThrownBy(() -> LockProviders.create(file.toUri().toString()))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("'" + file + "' is not a directory");
  }

  @Test
  void anUnwritableDirectoryFailsCalls() throws Exception {
    // root ignores permission bits, so as root use sysfs, which refuses new files even to root.
    Path unwritable;
    if ("root".equals(System.getProperty("user.name"))) {
      unwritable = Path.of("/sys");
    } else {
      unwritable = Files.createDirectory(dir.resolve("ro"));
      Files.setPosixFilePermissions(unwritable, PosixFilePermissions.fromString("r-x------"));
    }
    try (LockProvider provider = LockProviders.create("file://" + unwritable)) {
      assertThatThrownBy(() -> provider.status("x"))
          .isInstanceOf(LockProviderException.class)
          .hasMessage(
              "lock directory "
                  + unwritable
                  + " is not writable by this process: permission denied");
    }
  }

  @Test
  void badParametersAreNamed() {
    String base = dir.toUri().toString();
    assertThatThrownBy(() -> LockProviders.create(base + "?skw=1s"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("unknown parameter 'skw'")
        .hasMessageContaining("skew");
    assertThatThrownBy(() -> LockProviders.create(base + "?skew=soon"))
        .hasMessageContaining("parameter 'skew'");
    assertThatThrownBy(() -> LockProviders.create(base + "?mode=rwx"))
        .hasMessageContaining("parameter 'mode'");
    assertThatThrownBy(() -> LockProviders.create(base + "?mode=---rw----"))
        .hasMessageContaining("owner read and write");
    assertThatThrownBy(() -> LockProviders.create(base + "?poll-max=0ms"))
        .hasMessageContaining("'poll-max' must be positive");
    assertThatThrownBy(() -> LockProviders.create(base + "?garbled-grace=10ms"))
        .hasMessageContaining("'garbled-grace' must be at least 1s");
    assertThatThrownBy(() -> LockProviders.create(base + "?skew=20s"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("'garbled-grace' (30s) must be more than twice 'skew' (20s)");
    assertThatThrownBy(() -> LockProviders.create(base + "?skew=5s&garbled-grace=10s"))
        .hasMessageContaining("'garbled-grace' (10s) must be more than twice 'skew' (5s)");
    assertThatThrownBy(() -> LockProviders.create(base + "?renew-margin=183d"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining(
            "'renew-margin' (183d) leaves no usable TTL: a TTL must exceed twice it, and be at"
                + " most 365d");
  }

  @Test
  void aRemoteHostOrRelativePathIsRejected() {
    assertThatThrownBy(() -> LockProviders.create("file://nas/locks"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("names host 'nas'");
    assertThatThrownBy(() -> LockProviders.create("file:locks"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("not an absolute file URL");
    assertThatThrownBy(() -> LockProviders.create("file:///"))
        .isInstanceOf(LockConfigurationException.class)
        .hasMessageContaining("no directory path");
    // Normalised to the root, these put lock files in / (as root, in many containers).
    for (String url : new String[] {"file:///mnt/..", "file:///..", "file:///./"}) {
      assertThatThrownBy(() -> LockProviders.create(url))
          .as(url)
          .isInstanceOf(LockConfigurationException.class)
          .hasMessageContaining("root directory");
    }
  }
}
