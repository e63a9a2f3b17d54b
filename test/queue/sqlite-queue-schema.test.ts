import { describe, expect, it } from "@jest/globals";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { prepareQueueDatabase, SQLITE_QUEUE_SCHEMA_VERSION } from "../../src/queue/sqlite-queue-schema.js";

describe("prepareQueueDatabase", () => {
  it("lets two connections open a new database at once: the second finds the schema the first made", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "agentforge-schema-"));
    const file = path.join(dir, "queue.sqlite");
    const first = new Database(file);
    const second = new Database(file);
    try {
      // The second connection reads the version (0), and just then the first creates the schema:
      // the interleaving two processes starting together can produce.
      const pragma = second.pragma.bind(second);
      let raced = false;
      second.pragma = (source: string, options?: Database.PragmaOptions) => {
        const value: unknown = pragma(source, options);
        if (source === "user_version" && !raced) {
          raced = true;
          prepareQueueDatabase(first);
        }
        return value;
      };
      expect(() => prepareQueueDatabase(second)).not.toThrow();
      expect(raced).toBe(true);
      expect(pragma("user_version", { simple: true })).toBe(SQLITE_QUEUE_SCHEMA_VERSION);
      const tables = second
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('tasks', 'deliveries')")
        .all();
      expect(tables).toHaveLength(2);
    } finally {
      first.close();
      second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("upgrades a version 1 database in place, keeping its tasks, and adds the kind column", () => {
    const db = new Database(":memory:");
    try {
      db.exec(`CREATE TABLE tasks (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE);
        CREATE TABLE deliveries (delivery_id TEXT PRIMARY KEY, seen_at INTEGER NOT NULL);
        INSERT INTO tasks (id) VALUES ('kept');`);
      db.pragma("user_version = 1");
      prepareQueueDatabase(db);
      expect(db.pragma("user_version", { simple: true })).toBe(2);
      expect(db.prepare("SELECT id, kind FROM tasks").all()).toEqual([{ id: "kept", kind: null }]);
    } finally {
      db.close();
    }
  });

  it("refuses a database of an unknown schema version by name", () => {
    const db = new Database(":memory:");
    try {
      db.pragma("user_version = 7");
      expect(() => prepareQueueDatabase(db)).toThrow(/schema version 7; this build knows 2/);
    } finally {
      db.close();
    }
  });
});
