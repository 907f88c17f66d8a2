package dev.locksmith.consumers.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Boot application with one locked service. */
@SpringBootApplication
public class ConsumerApplication {

  /** Starts the application. */
  public static void main(String[] args) {
    SpringApplication.run(ConsumerApplication.class, args);
  }
}
