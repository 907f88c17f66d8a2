package dev.locksmith.spring.shutdown;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.LockEvent;
import dev.locksmith.core.LockListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A Boot application, run in a JVM of its own, whose {@code @Scheduled} job holds the lock {@value
 * #LOCK_NAME} (ttl 30 s) for about {@value #WORK_MILLIS} ms. Each run writes {@code started-N} when
 * the work begins and {@code ended-N} (the instant and whether the work was interrupted) when it
 * ends, into the directory given as the second argument.
 *
 * <p>Arguments: the provider URL, the marker directory, then any more application properties. A URL
 * {@code redisson:redis://...} makes the application define a {@code RedissonClient} bean (shut
 * down by the context, as the Redisson starter's is) and no {@code locksmith.url}, so the lock
 * provider runs over that client.
 */
public final class ShutdownJobApp {
  /** The lock the job holds. */
  public static final String LOCK_NAME = "shutdown-handover";

  /** How long the job works. */
  public static final long WORK_MILLIS = 1500;

  /** Starts the application; SIGTERM closes it through Boot's shutdown hook. */
  public static void main(String[] args) {
    boolean redisson = args[0].startsWith(REDISSON);
    new SpringApplicationBuilder(redisson ? RedissonApp.class : UrlApp.class)
        .web(WebApplicationType.NONE)
        .properties(
            (redisson
                ? "shutdown-job.redis=" + args[0].substring(REDISSON.length())
                : "locksmith.url=" + args[0]),
            "shutdown-job.markers=" + args[1],
            "spring.main.banner-mode=off")
        .properties(Arrays.copyOfRange(args, 2, args.length))
        .run();
  }

  /** The prefix of a URL served through an application's {@code RedissonClient} bean. */
  public static final String REDISSON = "redisson:";

  private ShutdownJobApp() {}

  /** The application over {@code locksmith.url}. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableScheduling
  static class UrlApp {
    @Bean
    Job job(Environment environment) {
      return new Job(markers(environment));
    }

    /** Writes {@code released-N} when the engine has released the job's lease. */
    @Bean
    LockListener releaseMarker(Environment environment) {
      Path markers = markers(environment);
      AtomicInteger releases = new AtomicInteger();
      return new LockListener() {
        @Override
        public void released(LockEvent event, Duration held) {
          write(markers, "released-" + releases.incrementAndGet(), Instant.now().toString());
        }
      };
    }
  }

  /** The application with a {@code RedissonClient} bean of its own. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableScheduling
  static class RedissonApp extends UrlApp {
    /** The client; its {@code shutdown()} writes {@code client-closed} first. */
    @Bean(destroyMethod = "shutdown")
    RedissonClient redissonClient(Environment environment) {
      Config config = new Config();
      config.useSingleServer().setAddress(environment.getRequiredProperty("shutdown-job.redis"));
      RedissonClient client = Redisson.create(config);
      Path markers = markers(environment);
      return (RedissonClient)
          Proxy.newProxyInstance(
              RedissonClient.class.getClassLoader(),
              new Class<?>[] {RedissonClient.class},
              (proxy, method, arguments) -> {
                if (method.getName().equals("shutdown") && method.getParameterCount() == 0) {
                  write(markers, "client-closed", Instant.now().toString());
                }
                try {
                  return method.invoke(client, arguments);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }

  private static Path markers(Environment environment) {
    return Path.of(environment.getRequiredProperty("shutdown-job.markers"));
  }

  /** Writes a marker file atomically, so the test never reads half of one. */
  static void write(Path markers, String name, String text) {
    try {
      Path temp = Files.createTempFile(markers, name, ".tmp");
      Files.writeString(temp, text);
      Files.move(temp, markers.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The locked job. */
  public static class Job {
    private final Path markers;
    private final AtomicInteger runs = new AtomicInteger();

    Job(Path markers) {
      this.markers = markers;
    }

    /**
     * Works {@value #WORK_MILLIS} ms under the lock, held at least {@code shutdown-job.min-hold}
     * (default none); the next run starts 200 ms after.
     */
    @Scheduled(fixedDelay = 200)
    @DistributedLock(name = LOCK_NAME, ttl = "30s", minHold = "${shutdown-job.min-hold:0s}")
    public void work() {
      int run = runs.incrementAndGet();
      write("started-" + run, Instant.now().toString());
      boolean interrupted = false;
      try {
        Thread.sleep(WORK_MILLIS); // the job's own work
      } catch (InterruptedException e) {
        interrupted = true;
        Thread.currentThread().interrupt();
      }
      write("ended-" + run, Instant.now() + " " + (interrupted ? "interrupted" : "completed"));
    }

    private void write(String name, String text) {
      ShutdownJobApp.write(markers, name, text);
    }
  }
}
