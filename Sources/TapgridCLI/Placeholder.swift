// CLI
