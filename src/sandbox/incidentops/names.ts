/** Word lists for the generated account. Invented for the sandbox; any resemblance is coincidental. */

export const FIRST_NAMES = [
  'Aisha', 'Akira', 'Amara', 'Ana', 'Andre', 'Anika', 'Arjun', 'Ava', 'Beatriz', 'Ben',
  'Bianca', 'Carlos', 'Carmen', 'Chen', 'Chloe', 'Daniel', 'Daria', 'David', 'Diego', 'Elena',
  'Elif', 'Emeka', 'Emily', 'Erik', 'Fatima', 'Felix', 'Gabriel', 'Grace', 'Hana', 'Hannah',
  'Hiro', 'Ibrahim', 'Ines', 'Isaac', 'Ivan', 'Jamal', 'James', 'Jana', 'Javier', 'Jia',
  'Julia', 'Kai', 'Karen', 'Kenji', 'Kofi', 'Laila', 'Lars', 'Leah', 'Leon', 'Lina',
  'Lucas', 'Lucia', 'Maya', 'Mateo', 'Mei', 'Mia', 'Miguel', 'Mohammed', 'Nadia', 'Naomi',
  'Nikhil', 'Noah', 'Nora', 'Olga', 'Omar', 'Oscar', 'Priya', 'Rafael', 'Rahul', 'Rosa',
  'Ruth', 'Sara', 'Sean', 'Sofia', 'Sven', 'Tanvir', 'Tara', 'Theo', 'Tomas', 'Uma',
  'Victor', 'Wei', 'Yara', 'Yusuf', 'Zara', 'Zoe', 'Marcus', 'Helen', 'Paolo', 'Ingrid',
] as const;

export const LAST_NAMES = [
  'Abara', 'Alvarez', 'Andersen', 'Bakker', 'Banerjee', 'Becker', 'Bianchi', 'Brennan', 'Castillo', 'Chowdhury',
  'Costa', 'Dang', 'Dubois', 'Eriksson', 'Fernandes', 'Fischer', 'Garcia', 'Gupta', 'Hansen', 'Haddad',
  'Hoffmann', 'Ibrahim', 'Ivanova', 'Jensen', 'Kang', 'Kaur', 'Khan', 'Kim', 'Kowalski', 'Larsen',
  'Lee', 'Lopez', 'Mahmoud', 'Martin', 'Mendes', 'Meyer', 'Mensah', 'Moreau', 'Murphy', 'Nakamura',
  'Nguyen', 'Novak', 'Okafor', 'Oliveira', 'Osei', 'Park', 'Pereira', 'Petrov', 'Quinn', 'Rahman',
  'Reyes', 'Rossi', 'Sato', 'Schmidt', 'Silva', 'Singh', 'Sokolova', 'Suzuki', 'Tanaka', 'Torres',
  'Tran', 'Varga', 'Vasquez', 'Volkov', 'Wagner', 'Walsh', 'Weber', 'Wong', 'Yamamoto', 'Yilmaz',
  'Zhang', 'Zhou', 'Olsen', 'Lindqvist', 'Moretti', "O'Brien", 'Nowak', 'Horvat', 'Pillai', 'Achebe',
] as const;

export const JOB_TITLES = [
  'Site Reliability Engineer', 'Senior Site Reliability Engineer', 'Software Engineer', 'Senior Software Engineer',
  'Staff Engineer', 'Platform Engineer', 'Backend Engineer', 'Mobile Engineer', 'Data Engineer',
  'Security Engineer', 'Engineering Manager', 'DevOps Engineer', 'Support Engineer', 'Database Administrator',
] as const;

export const COLORS = [
  'green', 'purple', 'teal', 'red', 'orange', 'blue', 'brown', 'cayenne', 'crimson', 'dark-blue',
  'dark-green', 'forest-green', 'gold', 'indigo', 'lime', 'maroon', 'navy', 'plum', 'sea-green', 'turquoise',
] as const;

export const USER_TIME_ZONES = [
  'America/New_York', 'America/Chicago', 'America/Los_Angeles', 'America/Sao_Paulo', 'Europe/London',
  'Europe/Berlin', 'Europe/Warsaw', 'Africa/Lagos', 'Asia/Kolkata', 'Asia/Tokyo', 'Australia/Sydney', 'Etc/UTC',
] as const;

/** Deliberately confusable names (search and disambiguation tests rely on them). */
export const SIMILAR_NAMES = [
  'Alex Morgan', 'Alex Moran', 'Alexandra Morgan', 'Sam Patel', 'Samantha Patel',
  'Chris Johnson', 'Kris Johnson', 'Jon Smith', 'John Smith',
] as const;

export const INCIDENT_TITLES = [
  'High error rate on {svc}',
  '{svc}: p99 latency above SLO',
  'Health check failing for {svc}',
  'Disk usage above 90% on {host}',
  'CPU saturation on {host}',
  'Memory pressure and OOM kills on {host}',
  '5xx responses spiking on {svc}',
  'Queue backlog growing for {svc}',
  'TLS certificate for {domain} expires in 7 days',
  'Database replication lag on {db}',
  'Pods crash-looping in {svc}',
  'Synthetic check failed: {svc} login flow',
  'Elevated timeouts calling {svc} dependencies',
  'Error budget burn rate critical for {svc}',
] as const;

export const NOTES = [
  'Rolled back the last deploy; error rate is recovering.',
  'Root cause looks like an expired credential on the upstream provider.',
  'Scaled the worker pool from 6 to 12 replicas.',
  'Customer support has been informed; status page updated.',
  'Investigating together with the database team.',
  'Failover to the secondary region completed.',
  'Flaky alert, tuning the threshold in the monitor.',
  'Disk cleaned up, log rotation fixed.',
] as const;
