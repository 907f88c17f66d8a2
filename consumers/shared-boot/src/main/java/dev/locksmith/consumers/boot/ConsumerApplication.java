package dev.locksmith.consumers.boot;

import dev.locksmith.consumers.Settlement;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** A Spring Boot application with one locked service. */
@SpringBootApplication
public class ConsumerApplication {

  /** Starts the application. */
  public static void main(String[] args) {
    SpringApplication.run(ConsumerApplication.class, args);
  }

  /** The locked service; the starter's advisor proxies it. */
  @Bean
  Settlement settlement() {
    return new Settlement();
  }
}
