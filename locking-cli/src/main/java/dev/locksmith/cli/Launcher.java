package dev.locksmith.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * How COMMAND becomes the leader of a session and process group of its own, so that it can be
 * frozen and stopped as a whole. Java cannot call {@code setsid(2)} itself, so COMMAND is started
 * through a program that does and then execs it in the same process, keeping the pid: util-linux
 * {@code setsid -w}, else {@code perl} with {@code POSIX::setsid}. Without either COMMAND shares
 * {@code run}'s process group ({@link #NONE}).
 *
 * @param name what is used, for messages: {@code setsid}, {@code perl} or {@code none}
 * @param prefix the arguments put before COMMAND
 */
record Launcher(String name, List<String> prefix) {
  /** COMMAND started directly, in {@code run}'s own process group. */
  static final Launcher NONE = new Launcher("none", List.of());

  private static final String PERL_SETSID =
      "defined(POSIX::setsid()) or die \"locksmith: setsid: $!\\n\";"
          + " exec { $ARGV[0] } @ARGV;"
          + " print STDERR \"locksmith: cannot run $ARGV[0]: $!\\n\"; exit 126";

  private static volatile @Nullable Launcher detected;

  /** Copies the prefix. */
  Launcher {
    prefix = List.copyOf(prefix);
  }

  /** The best launcher on this host, found once. */
  static Launcher detect() {
    Launcher launcher = detected;
    if (launcher == null) {
      launcher = find();
      detected = launcher;
    }
    return launcher;
  }

  private static Launcher find() {
    Optional<Path> setsid = Executables.onPath("setsid", "/usr/bin/setsid", "/bin/setsid");
    if (setsid.isPresent() && isUtilLinux(setsid.get())) {
      return setsid(setsid.get());
    }
    Optional<Path> perl = Executables.onPath("perl", "/usr/bin/perl");
    return perl.map(Launcher::perl).orElse(NONE);
  }

  /** Through util-linux {@code setsid}. */
  static Launcher setsid(Path setsid) {
    // -w: should setsid ever have to fork (only when started as a group leader), it waits for
    // COMMAND and passes on its exit status instead of returning at once.
    return new Launcher("setsid", List.of(setsid.toString(), "-w", "--"));
  }

  /** Through {@code perl} and {@code POSIX::setsid}, for hosts without util-linux (macOS). */
  static Launcher perl(Path perl) {
    return new Launcher("perl", List.of(perl.toString(), "-MPOSIX", "-e", PERL_SETSID, "--"));
  }

  /** Whether {@code setsid} is util-linux's, which has {@code -w} and execs without forking. */
  private static boolean isUtilLinux(Path setsid) {
    try {
      Process version =
          new ProcessBuilder(setsid.toString(), "--version").redirectErrorStream(true).start();
      String out = new String(version.getInputStream().readAllBytes());
      return version.waitFor(5, TimeUnit.SECONDS) && out.contains("util-linux");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether COMMAND gets a session and process group of its own. */
  boolean isolates() {
    return !prefix.isEmpty();
  }

  /** The command line that starts {@code command} through this launcher. */
  List<String> wrap(List<String> command) {
    List<String> wrapped = new ArrayList<>(prefix);
    wrapped.addAll(command);
    return wrapped;
  }
}
