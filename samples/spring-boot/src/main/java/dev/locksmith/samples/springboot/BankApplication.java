package dev.locksmith.samples.springboot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The sample bank: start it twice (two ports) to see the locks work across processes. */
@SpringBootApplication
@EnableScheduling
public class BankApplication {

  /**
   * Starts the application.
   *
   * @param args Spring Boot command-line arguments, e.g. {@code --server.port=8081}
   */
  public static void main(String[] args) {
    SpringApplication.run(BankApplication.class, args);
  }
}
